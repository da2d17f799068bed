"""The effective configuration: schema, defaults, files, merge order, validation, provenance.

Layers, later wins: built-in defaults < global file < project file < explicit overrides. Objects
merge recursively; scalars and arrays replace. The project file may only tune job behaviour
(``defaults``, ``worker``, ``poller``, ``artifacts``, ``cleanup``): browser, auth, archive, queue
and notify settings control privileged local state (profiles, executables, commands run on the
user's behalf), and a repository someone else wrote must not be able to change them.

Every refusal is ``oracle_config_invalid`` naming where the bad value came from (a file path,
``arguments``, ``built-in`` or ``snapshot``) and its dotted key, e.g. ``browser.maxConcurrentJobs``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal, cast, get_args
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel

from oraculum.core import paths, providers
from oraculum.core.bounded import InputRefused, json_depth, read_bounded
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.presets import (
    CHATGPT,
    GROK_MODE_IDS,
    PRESET_IDS,
    canonical_grok_mode,
    canonical_preset_id,
    canonical_provider,
    normalize_provider,
)

MIB: Final = 1024 * 1024
GIB: Final = 1024 * MIB
SECOND_MS: Final = 1000
MINUTE_MS: Final = 60 * SECOND_MS
HOUR_MS: Final = 60 * MINUTE_MS
DAY_MS: Final = 24 * HOUR_MS

BUILTIN: Final = "built-in"
ARGUMENTS: Final = "arguments"
SNAPSHOT: Final = "snapshot"

PROJECT_SECTIONS: Final[tuple[str, ...]] = ("defaults", "worker", "poller", "artifacts", "cleanup")

GrokModeId = Literal["heavy"]
CloneStrategy = Literal["auto", "reflink", "copy"]
RunMode = Literal["headless", "headed"]
Transport = Literal["isolated", "managed", "relay"]
ManagedHeaded = Literal["auto", "headed", "headless"]

CHATGPT_HOSTS: Final = providers.CHATGPT.hosts
GROK_HOSTS: Final = providers.GROK.hosts
LOOPBACK_HOSTS: Final = frozenset({"127.0.0.1", "localhost", "::1"})

# Real browsers' user-data trees, relative to the home directory. A profile path inside one (or
# containing one) would let oraculum clone, swap or delete the user's own browser profile.
BROWSER_USER_DATA_DIRS: Final[tuple[str, ...]] = (
    ".config/google-chrome",
    ".config/google-chrome-beta",
    ".config/google-chrome-unstable",
    ".config/chromium",
    ".config/BraveSoftware/Brave-Browser",
    "Library/Application Support/Google/Chrome",
    "Library/Application Support/Google/Chrome Beta",
    "Library/Application Support/Google/Chrome Canary",
    "Library/Application Support/Chromium",
    "Library/Application Support/BraveSoftware/Brave-Browser",
)

DEFAULT_BROWSER_ARGS: Final[tuple[str, ...]] = ("--disable-blink-features=AutomationControlled",)


class ConfigProblem(ValueError):
    """A rule broken inside a validator.

    ``key`` names the offending field when the validator checks a whole section (pydantic would
    otherwise blame the section), so the error still points at the exact dotted key.
    """

    def __init__(self, message: str, *, key: str | None = None, value: Any = None) -> None:
        super().__init__(message)
        self.key = key
        self.value = value


# --- pure rules -------------------------------------------------------------------------------


def normalize_abs_path(value: Any) -> Path:
    """Expand ``~``, require an absolute path and normalise it lexically."""
    if isinstance(value, Path):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise ConfigProblem("must be a non-empty path string", value=value)
    expanded = os.path.expanduser(value)
    if not os.path.isabs(expanded):
        raise ConfigProblem("must be an absolute path (after ~ expansion)", value=value)
    normal = os.path.normpath(expanded)
    # POSIX keeps a leading `//` as implementation-defined; treat it as `/`.
    return Path("/" + normal.lstrip("/"))


def _forms(path: Path) -> set[Path]:
    """The lexical path and its symlink-resolved form: both must pass every rule."""
    return {path, Path(os.path.realpath(path))}


def _inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def profile_path_problem(path: Path, home: Path) -> str | None:
    """Why ``path`` may not hold oraculum's browser profiles, or None if it may."""
    homes = _forms(home)
    trees = {form for rel in BROWSER_USER_DATA_DIRS for h in homes for form in _forms(h / rel)}
    for candidate in _forms(path):
        if candidate == Path("/"):
            return "must not be the filesystem root"
        if candidate in homes:
            return "must not be the home directory itself"
        if any(h.is_relative_to(candidate) for h in homes):
            return "must not contain the home directory"
        for tree in sorted(trees):
            if _inside(candidate, tree):
                return f"must not be inside a real browser's user-data directory ({tree})"
            if tree.is_relative_to(candidate):
                return f"must not contain a real browser's user-data directory ({tree})"
    return None


def paths_overlap(inner: Path, outer: Path) -> bool:
    """Whether ``inner`` equals or sits inside ``outer``, lexically or after symlinks."""
    return any(_inside(i, o) for i in _forms(inner) for o in _forms(outer))


def url_problem(url: str, https_hosts: frozenset[str]) -> str | None:
    """Why ``url`` may not be used as a provider URL, or None if it may."""
    if any(ch.isspace() or ord(ch) < 32 or ch == "\\" for ch in url):
        return "must not contain whitespace, control characters or backslashes"
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        return "has an invalid port"
    if parts.username is not None or parts.password is not None:
        return "must not contain credentials"
    host = parts.hostname
    if parts.scheme == "https" and host in https_hosts and port in (None, 443):
        return None
    if parts.scheme == "http" and host in LOOPBACK_HOSTS:
        return None
    origins = ", ".join(f"https://{h}" for h in sorted(https_hosts))
    return (
        f"must be a URL on {origins}, or an http:// loopback origin "
        "(127.0.0.1, localhost or [::1], any port)"
    )


def relay_endpoint_problem(endpoint: str) -> str | None:
    """Why ``endpoint`` may not be the relay's DevTools endpoint, or None: only a loopback
    ``http://host:port`` is ever driven (the config's rule and the job's, again at run time)."""
    if any(ch.isspace() or ord(ch) < 32 or ch == "\\" for ch in endpoint):
        return "must not contain whitespace, control characters or backslashes"
    parts = urlsplit(endpoint)
    try:
        port = parts.port
    except ValueError:
        return "has an invalid port"
    if parts.scheme != "http":
        return "must be an http:// DevTools endpoint (e.g. http://127.0.0.1:9222)"
    if parts.username is not None or parts.password is not None:
        return "must not contain credentials"
    if parts.hostname not in LOOPBACK_HOSTS:
        return "must be on loopback (127.0.0.1, localhost or [::1]): another host is never driven"
    if port is None:
        return "must name the DevTools port"
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        return "must be just scheme, host and port"
    return None


def browser_arg_problem(arg: str) -> str | None:
    """Why ``arg`` may not be passed to Chromium, or None.

    The profile directory and the remote-debugging surface are oraculum's to set: overriding
    them could point a job at the user's real profile or expose the browser to other processes.
    Chromium accepts `--`, `-` and (on Windows) `/` prefixes and any case, so all forms count.
    """
    stripped = arg.strip()
    if not stripped:
        return "must not be empty"
    name = stripped.lstrip("-/").split("=", 1)[0].strip().lower()
    if name == "user-data-dir":
        return "must not set --user-data-dir (oraculum chooses the profile directory)"
    if name.startswith("remote-debugging") or name == "remote-allow-origins":
        return f"must not set --{name} (oraculum controls the debugging surface)"
    return None


# --- schema -----------------------------------------------------------------------------------


class _Section(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="forbid",
        frozen=True,
    )


def _non_blank(value: str | None) -> str | None:
    if value is not None and not value.strip():
        raise ConfigProblem("must not be blank", value=value)
    return value


class DefaultsSection(_Section):
    provider: StrictStr = CHATGPT
    preset: StrictStr = "pro_extended"
    grok_mode: GrokModeId = "heavy"

    @field_validator("provider", mode="before")
    @classmethod
    def _provider_alias(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        name = canonical_provider(value)
        if name is None:
            choices = ", ".join(providers.browser_providers())
            raise ConfigProblem(f"must be one of {choices}", value=value)
        return name

    @field_validator("grok_mode", mode="before")
    @classmethod
    def _grok_mode_alias(cls, value: Any) -> Any:
        return (canonical_grok_mode(value) or value) if isinstance(value, str) else value

    @field_validator("preset")
    @classmethod
    def _canonical_preset(cls, value: str) -> str:
        canonical = canonical_preset_id(value)
        if canonical is None:
            raise ConfigProblem(
                f"must be a preset id or label, one of {', '.join(PRESET_IDS)}", value=value
            )
        return canonical


def _default_seed_dir() -> Path:
    return paths.data_dir() / "seed-profiles" / CHATGPT


def _default_runtime_dir() -> Path:
    return paths.data_dir() / "runtime-profiles"


class RelaySettings(_Section):
    """``browser.relay``: drive the user's own Chrome; off unless explicitly enabled."""

    enabled: StrictBool = False
    endpoint: StrictStr | None = None

    @field_validator("endpoint")
    @classmethod
    def _loopback_endpoint(cls, value: str | None) -> str | None:
        problem = None if value is None else relay_endpoint_problem(value)
        if problem:
            raise ConfigProblem(problem, value=value)
        return value


class ManagedSettings(_Section):
    """``browser.managed``: the long-lived browser oraculum keeps (``oraculum browser``)."""

    start_on_demand: StrictBool = True
    headed: ManagedHeaded = "auto"  # auto: headed when a display exists


class BrowserSection(_Section):
    # Session names become directory and socket names, so keep them to a safe alphabet.
    session_prefix: StrictStr = Field("oracle", pattern=r"^[A-Za-z0-9_-]{1,32}$")
    auth_seed_profile_dir: Path = Field(default_factory=_default_seed_dir, validate_default=True)
    runtime_profiles_dir: Path = Field(default_factory=_default_runtime_dir, validate_default=True)
    max_concurrent_jobs: StrictInt = Field(2, ge=1, le=32)
    clone_strategy: CloneStrategy = "auto"
    chat_url: StrictStr = providers.CHATGPT.default_chat_url
    auth_url: StrictStr = providers.CHATGPT.default_auth_url
    grok_url: StrictStr = providers.GROK.default_chat_url
    gemini_url: StrictStr = providers.GEMINI.default_chat_url
    run_mode: RunMode = "headless"
    executable_path: Path | None = None
    user_agent: StrictStr | None = None
    args: tuple[StrictStr, ...] = DEFAULT_BROWSER_ARGS
    # Global config only, like the whole section: a project can never choose or point one.
    transport: Transport = "isolated"
    relay: RelaySettings = Field(default_factory=RelaySettings)
    managed: ManagedSettings = Field(default_factory=ManagedSettings)

    @field_validator("auth_seed_profile_dir", "runtime_profiles_dir", mode="before")
    @classmethod
    def _safe_profile_path(cls, value: Any) -> Path:
        path = normalize_abs_path(value)
        problem = profile_path_problem(path, Path.home())
        if problem:
            raise ConfigProblem(problem, value=value)
        return path

    @field_validator("executable_path", mode="before")
    @classmethod
    def _absolute_executable(cls, value: Any) -> Path | None:
        return None if value is None else normalize_abs_path(value)

    @field_validator("user_agent")
    @classmethod
    def _user_agent(cls, value: str | None) -> str | None:
        return _non_blank(value)

    @field_validator("chat_url", "auth_url")
    @classmethod
    def _chatgpt_url(cls, value: str) -> str:
        problem = url_problem(value, CHATGPT_HOSTS)
        if problem:
            raise ConfigProblem(problem, value=value)
        return value

    @field_validator("grok_url")
    @classmethod
    def _grok_url(cls, value: str) -> str:
        problem = url_problem(value, GROK_HOSTS)
        if problem:
            raise ConfigProblem(problem, value=value)
        return value

    @field_validator("gemini_url")
    @classmethod
    def _gemini_url(cls, value: str) -> str:
        problem = url_problem(value, providers.GEMINI.hosts)
        if problem:
            raise ConfigProblem(problem, value=value)
        return value

    @field_validator("args")
    @classmethod
    def _args(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for index, arg in enumerate(value):
            problem = browser_arg_problem(arg)
            if problem:
                raise ConfigProblem(f"entry {index} {problem}", value=arg)
        return value

    @model_validator(mode="after")
    def _profiles_apart(self) -> BrowserSection:
        runtime = self.runtime_profiles_dir
        for seed in {seed_path(self.auth_seed_profile_dir, s) for s in providers.BUILT_IN}:
            if paths_overlap(runtime, seed) or paths_overlap(seed, runtime):
                raise ConfigProblem(
                    f"must not equal, contain or sit inside the auth seed profile {seed}",
                    key="runtimeProfilesDir",
                    value=str(runtime),
                )
        return self


class AuthSection(_Section):
    poll_ms: StrictInt = Field(1000, ge=100, le=MINUTE_MS)
    bootstrap_timeout_ms: StrictInt = Field(10 * MINUTE_MS, ge=1000, le=HOUR_MS)
    chrome_profile: StrictStr | None = None
    chrome_cookie_path: Path | None = None

    @field_validator("chrome_profile")
    @classmethod
    def _chrome_profile(cls, value: str | None) -> str | None:
        return _non_blank(value)

    @field_validator("chrome_cookie_path", mode="before")
    @classmethod
    def _absolute_cookie_path(cls, value: Any) -> Path | None:
        return None if value is None else normalize_abs_path(value)


class WorkerSection(_Section):
    poll_ms: StrictInt = Field(5 * SECOND_MS, ge=100, le=10 * MINUTE_MS)
    completion_timeout_ms: StrictInt = Field(90 * MINUTE_MS, ge=1000, le=7 * DAY_MS)
    heartbeat_interval_ms: StrictInt = Field(10 * SECOND_MS, ge=100, le=10 * MINUTE_MS)
    stale_heartbeat_ms: StrictInt = Field(3 * MINUTE_MS, ge=100, le=HOUR_MS)
    no_worker_grace_ms: StrictInt = Field(30 * SECOND_MS, ge=0, le=HOUR_MS)
    terminate_grace_ms: StrictInt = Field(5 * SECOND_MS, ge=0, le=10 * MINUTE_MS)
    send_accept_timeout_ms: StrictInt = Field(20 * SECOND_MS, ge=100, le=HOUR_MS)
    url_verify_timeout_ms: StrictInt = Field(60 * SECOND_MS, ge=0, le=HOUR_MS)
    stale_stop_ms: StrictInt = Field(2 * MINUTE_MS, ge=100, le=6 * HOUR_MS)
    # How long a reply without its action bar must sit unchanged, with no stop control and no
    # reasoning indicator, before it counts as finished: longer than the silent pauses (60 s
    # and more) that reasoning models make between thinking and answering (issue 37 §4).
    completion_quiet_ms: StrictInt = Field(90 * SECOND_MS, ge=500, le=HOUR_MS)
    readiness_timeout_ms: StrictInt = Field(30 * SECOND_MS, ge=100, le=30 * MINUTE_MS)
    upload_timeout_ms: StrictInt = Field(10 * MINUTE_MS, ge=100, le=6 * HOUR_MS)
    send_ready_timeout_ms: StrictInt = Field(5 * MINUTE_MS, ge=100, le=HOUR_MS)

    @model_validator(mode="after")
    def _heartbeat_outlives_interval(self) -> WorkerSection:
        # A staleness window no longer than the beat would declare every live worker dead.
        if self.stale_heartbeat_ms <= self.heartbeat_interval_ms:
            raise ConfigProblem(
                f"must be greater than worker.heartbeatIntervalMs ({self.heartbeat_interval_ms})",
                key="staleHeartbeatMs",
                value=self.stale_heartbeat_ms,
            )
        return self


class PollerSection(_Section):
    interval_ms: StrictInt = Field(5 * SECOND_MS, ge=100, le=10 * MINUTE_MS)


class ArtifactsSection(_Section):
    capture: StrictBool = True
    max_bytes: StrictInt = Field(25 * MIB, ge=1, le=2 * GIB)


class CleanupSection(_Section):
    complete_job_retention_ms: StrictInt = Field(14 * DAY_MS, ge=0, le=3650 * DAY_MS)
    failed_job_retention_ms: StrictInt = Field(30 * DAY_MS, ge=0, le=3650 * DAY_MS)
    wakeup_grace_ms: StrictInt = Field(10 * MINUTE_MS, ge=0, le=7 * DAY_MS)


class ArchiveSection(_Section):
    zstd_level: StrictInt = Field(3, ge=1, le=22)
    threads: StrictInt = Field(0, ge=0, le=1024)  # 0 = every core
    timeout_ms: StrictInt = Field(2 * MINUTE_MS, ge=1000, le=HOUR_MS)
    chatgpt_max_bytes: StrictInt = Field(250 * MIB, ge=1, le=2 * GIB)
    grok_max_bytes: StrictInt = Field(200 * MIB, ge=1, le=2 * GIB)
    gemini_max_bytes: StrictInt = Field(100 * MIB, ge=1, le=2 * GIB)


class QueueSection(_Section):
    max_queued_per_slot: StrictInt = Field(1, ge=0, le=1000)
    max_queued_archive_bytes: StrictInt | None = Field(None, ge=1, le=64 * GIB)


class NotifySection(_Section):
    hook: tuple[StrictStr, ...] | None = Field(None, min_length=1)
    timeout_ms: StrictInt = Field(10 * SECOND_MS, ge=100, le=10 * MINUTE_MS)
    desktop: StrictBool = False  # the worker runs notify-send once when its job ends

    @field_validator("hook")
    @classmethod
    def _hook_argv(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        for index, part in enumerate(value or ()):
            if not part.strip():
                raise ConfigProblem(f"entry {index} must not be blank", value=part)
        return value


class Config(_Section):
    """The validated, immutable effective configuration."""

    defaults: DefaultsSection = Field(default_factory=DefaultsSection)
    browser: BrowserSection = Field(default_factory=BrowserSection)
    auth: AuthSection = Field(default_factory=AuthSection)
    worker: WorkerSection = Field(default_factory=WorkerSection)
    poller: PollerSection = Field(default_factory=PollerSection)
    artifacts: ArtifactsSection = Field(default_factory=ArtifactsSection)
    cleanup: CleanupSection = Field(default_factory=CleanupSection)
    archive: ArchiveSection = Field(default_factory=ArchiveSection)
    queue: QueueSection = Field(default_factory=QueueSection)
    notify: NotifySection = Field(default_factory=NotifySection)

    def to_json_dict(self) -> dict[str, Any]:
        """camelCase, JSON-ready: the form files use and jobs snapshot."""
        return self.model_dump(mode="json", by_alias=True)

    @classmethod
    def from_snapshot(cls, data: Mapping[str, Any]) -> Config:
        """Rebuild a job's stored config; it is re-validated because the rules may have moved."""
        if not isinstance(data, Mapping):
            raise config_error(SNAPSHOT, None, "must be a JSON object", value=data)
        return validate_config(dict(data), {}, default_where=SNAPSHOT)

    @property
    def queue_depth(self) -> int:
        return self.browser.max_concurrent_jobs * self.queue.max_queued_per_slot

    @property
    def max_queued_archive_bytes(self) -> int:
        explicit = self.queue.max_queued_archive_bytes
        if explicit is not None:
            return explicit
        return self.browser.max_concurrent_jobs * self.archive.chatgpt_max_bytes

    def archive_max_bytes(self, provider: str) -> int:
        return providers.provider_spec(provider).archive_ceiling(self.archive)


SECTION_MODELS: Final[dict[str, type[_Section]]] = {
    name: cast(type[_Section], info.annotation) for name, info in Config.model_fields.items()
}
ALL_SECTIONS: Final[tuple[str, ...]] = tuple(SECTION_MODELS)

# The most a project file may set; the least is the schema's own minimum. A project file comes
# with a repository someone else may have written: it may tune a job, not park a worker, a slot
# or a job's files for decades. The user's own global file may go up to the schema's maxima
# (wider, still finite). completionTimeoutMs allows a whole day, since Deep Research and Pro
# runs take hours at the most (the built-in default is 90 minutes).
PROJECT_MAXIMA: Final[dict[str, int]] = {
    "worker.pollMs": MINUTE_MS,
    "worker.completionTimeoutMs": DAY_MS,
    "worker.heartbeatIntervalMs": MINUTE_MS,
    "worker.staleHeartbeatMs": 10 * MINUTE_MS,
    "worker.noWorkerGraceMs": 5 * MINUTE_MS,
    "worker.terminateGraceMs": MINUTE_MS,
    "worker.sendAcceptTimeoutMs": 5 * MINUTE_MS,
    "worker.urlVerifyTimeoutMs": 10 * MINUTE_MS,
    "worker.staleStopMs": HOUR_MS,
    "worker.completionQuietMs": 30 * MINUTE_MS,
    "worker.readinessTimeoutMs": 5 * MINUTE_MS,
    "worker.uploadTimeoutMs": HOUR_MS,
    "worker.sendReadyTimeoutMs": 30 * MINUTE_MS,
    "poller.intervalMs": MINUTE_MS,
    "artifacts.maxBytes": 256 * MIB,
    "cleanup.completeJobRetentionMs": 365 * DAY_MS,
    "cleanup.failedJobRetentionMs": 365 * DAY_MS,
    "cleanup.wakeupGraceMs": DAY_MS,
}

_ALLOWED_VALUES: Final[dict[str, tuple[str, ...]]] = {
    "defaults.preset": PRESET_IDS,
    "defaults.grokMode": GROK_MODE_IDS,
    "browser.cloneStrategy": get_args(CloneStrategy),
    "browser.runMode": get_args(RunMode),
    "browser.transport": get_args(Transport),
}


def _allowed_values(key: str) -> tuple[str, ...] | None:
    """The values a setting may take, where they are a closed list (the providers are the
    registry's at the time of asking: a registered one counts)."""
    if key == "defaults.provider":
        return providers.browser_providers()
    return _ALLOWED_VALUES.get(key)


def section_keys(section: str) -> tuple[str, ...]:
    """The camelCase keys a section accepts."""
    return tuple(info.alias or name for name, info in SECTION_MODELS[section].model_fields.items())


def all_keys() -> list[str]:
    return [f"{section}.{key}" for section in ALL_SECTIONS for key in section_keys(section)]


def field_range(key: str) -> tuple[int | None, int | None]:
    """The (minimum, maximum) the schema allows for the dotted ``key``; None where unbounded."""
    section, _, name = key.partition(".")
    model = SECTION_MODELS.get(section)
    for field_name, info in model.model_fields.items() if model else ():
        if (info.alias or field_name) == name:
            low = next((m.ge for m in info.metadata if hasattr(m, "ge")), None)
            high = next((m.le for m in info.metadata if hasattr(m, "le")), None)
            return low, high
    return None, None


def project_bound_problem(key: str, value: Any) -> str | None:
    """Why a project file may not set ``key`` to ``value``, or None. Non-integers are left to
    the schema, which names the type it wants."""
    if key not in PROJECT_MAXIMA or isinstance(value, bool) or not isinstance(value, int):
        return None
    low, _ = field_range(key)
    high = PROJECT_MAXIMA[key]
    if (low is None or value >= low) and value <= high:
        return None
    return (
        f"must be between {low} and {high} in a project config (the global config "
        f"{paths.global_config_path()} may allow more)"
    )


def seed_path(configured: Path, spec: providers.ProviderSpec) -> Path:
    """A provider's seed profile: the configured one, with the provider's suffix (Grok's sits
    next to ChatGPT's)."""
    return configured.with_name(configured.name + spec.seed_suffix)


def seed_profile_dir(config: Config, provider: str) -> Path:
    """The signed-in seed profile for ``provider``."""
    spec = providers.REGISTRY[normalize_provider(provider)]
    return seed_path(config.browser.auth_seed_profile_dir, spec)


def provider_urls(config: Config, provider: str) -> tuple[str, str]:
    """(chat URL, auth URL) for ``provider``, from the config keys its registry entry names."""
    return providers.REGISTRY[normalize_provider(provider)].urls(config.browser)


# --- errors -----------------------------------------------------------------------------------

_NO_VALUE: Final = object()


def config_error(
    where: str,
    key: str | None,
    problem: str,
    *,
    value: Any = _NO_VALUE,
    allowed: Sequence[str] | None = None,
    more: int = 0,
) -> OracleError:
    is_file = where not in (BUILTIN, ARGUMENTS, SNAPSHOT)
    subject = key or ("the file" if is_file else "the config")
    message = f"Invalid oraculum config ({where}): {subject} {problem}"
    if value is not _NO_VALUE and _short_scalar(value):
        message += f" (got {json.dumps(value)})"
    if more:
        message += f"; {more} more problem{'s' if more > 1 else ''} after this one"
    if is_file:
        step = f"Fix {key or 'the file'} in {where}, then run `oraculum config check`."
    elif where == ARGUMENTS:
        step = f"Fix the {key or 'override'} argument."
    elif where == SNAPSHOT:
        step = "The job's stored config no longer validates; submit a new job."
    else:
        step = "Check the ORACULUM_* directory environment variables and HOME."
    return OracleError(
        ErrorCode.ORACLE_CONFIG_INVALID,
        message + ".",
        rejected_value=None if value is _NO_VALUE else value,
        allowed_values=list(allowed) if allowed else None,
        suggested_next_step=step,
        details={"file": where, "key": key},
    )


def _short_scalar(value: Any) -> bool:
    if isinstance(value, str):
        return len(value) <= 200
    return isinstance(value, bool | int | float) or value is None


_PROBLEM_BY_TYPE: Final[dict[str, str]] = {
    "extra_forbidden": "is not a known setting",
    "int_type": "must be an integer",
    "bool_type": "must be true or false",
    "string_type": "must be a string",
    "string_too_short": "must not be empty",
    "string_pattern_mismatch": "must match {pattern}",
    "greater_than_equal": "must be at least {ge}",
    "less_than_equal": "must be at most {le}",
    "literal_error": "must be one of {expected}",
    "tuple_type": "must be an array",
    "too_short": "must have at least {min_length} item(s)",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
    "dict_type": "must be an object",
    "path_type": "must be a path string",
}


_BOUND_ERRORS: Final = frozenset({"greater_than_equal", "less_than_equal"})


def _range_problem(key: str) -> str | None:
    """`must be between A and B` for a setting bounded on both sides: the whole range, not
    only the side that was crossed."""
    low, high = field_range(key)
    return None if low is None or high is None else f"must be between {low} and {high}"


def _describe(error: Mapping[str, Any]) -> str:
    template = _PROBLEM_BY_TYPE.get(error["type"])
    if template is None:
        msg = str(error["msg"])
        return "is invalid: " + msg[:1].lower() + msg[1:]
    return template.format(**error.get("ctx", {}))


def _error_from_validation(
    exc: ValidationError, sources: Mapping[str, str], default_where: str
) -> OracleError:
    errors = exc.errors(include_url=False)
    first = errors[0]
    loc = [str(part) for part in first["loc"]]
    value = first.get("input", _NO_VALUE)
    cause = first.get("ctx", {}).get("error")
    if isinstance(cause, ConfigProblem):
        problem = str(cause)
        if cause.key:
            loc = [*loc[:1], cause.key]
        if cause.value is not None:
            value = cause.value
    else:
        problem = _describe(first)
        if first["type"] == "extra_forbidden":
            value = loc[-1]
        if first["type"] in _BOUND_ERRORS and len(loc) == 2:
            problem = _range_problem(".".join(loc)) or problem
    key = ".".join(loc[:2]) or None
    display = key if len(loc) <= 2 else f"{key}[{']['.join(loc[2:])}]"
    if isinstance(value, Mapping | list | tuple):
        value = _NO_VALUE if len(json.dumps(value, default=str)) > 200 else value
    error = config_error(
        sources.get(key or "", default_where),
        display,
        problem,
        value=value,
        allowed=_allowed_values(key or ""),
        more=len(errors) - 1,
    )
    # The message shows the exact element (`browser.args[2]`); details carry the setting's key.
    error.details["key"] = key
    return error


def validate_config(
    merged: Mapping[str, Any], sources: Mapping[str, str], *, default_where: str = BUILTIN
) -> Config:
    """Validate a merged camelCase dict; errors blame the layer that supplied the bad key."""
    try:
        return Config.model_validate(merged)
    except ValidationError as exc:
        raise _error_from_validation(exc, sources, default_where) from None


# --- layers -----------------------------------------------------------------------------------


def check_project_bounds(data: Mapping[str, Any], where: str) -> None:
    """Refuse a project file's duration or size outside the project range (checked layer)."""
    for section, body in data.items():
        for name, value in body.items():
            problem = project_bound_problem(f"{section}.{name}", value)
            if problem:
                raise config_error(where, f"{section}.{name}", problem, value=value)


def check_layer(data: Any, where: str, allowed_sections: Sequence[str]) -> None:
    """Refuse a layer whose shape is wrong, before merging hides which layer it came from."""
    if not isinstance(data, Mapping):
        raise config_error(where, None, "must be a JSON object", value=data)
    for section, body in data.items():
        if section not in SECTION_MODELS:
            raise config_error(
                where, section, "is not a known section", value=section, allowed=ALL_SECTIONS
            )
        if section not in allowed_sections:
            first = next(iter(body), None) if isinstance(body, Mapping) else None
            key = f"{section}.{first}" if first is not None else section
            raise config_error(
                where,
                key,
                "cannot be set in a project config; only "
                f"{', '.join(allowed_sections)} may be (set it in the global config "
                f"{paths.global_config_path()})",
                allowed=allowed_sections,
            )
        if not isinstance(body, Mapping):
            raise config_error(where, section, "must be an object", value=body)
        known = section_keys(section)
        for key in body:
            if key not in known:
                raise config_error(
                    where,
                    f"{section}.{key}",
                    "is not a known setting",
                    value=key,
                    allowed=known,
                )


def deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """Objects merge recursively; everything else (scalars, arrays, null) replaces."""
    out = dict(base)
    for key, value in over.items():
        current = out.get(key)
        if isinstance(current, Mapping) and isinstance(value, Mapping):
            out[key] = deep_merge(current, value)
        else:
            out[key] = value
    return out


def merge_layers(
    layers: Sequence[tuple[str, Mapping[str, Any]]],
) -> tuple[dict[str, Any], dict[str, str]]:
    """Merge checked layers in order; return the merged dict and which layer set each key."""
    merged: dict[str, Any] = {}
    sources = dict.fromkeys(all_keys(), BUILTIN)
    for name, layer in layers:
        merged = deep_merge(merged, layer)
        for section, body in layer.items():
            for key in body:
                sources[f"{section}.{key}"] = name
    return merged, sources


class _DuplicateKeyError(ValueError):
    pass


def _refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # json.loads would keep the last of two equal keys silently; a config should say one thing.
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKeyError(key)
        out[key] = value
    return out


# A config file holds a few dozen settings; nothing legitimate comes near these bounds.
CONFIG_MAX_BYTES: Final = 1024 * 1024
CONFIG_MAX_DEPTH: Final = 32


def read_config_file(path: Path, *, inside: Path | None = None) -> dict[str, Any] | None:
    """The file's JSON object, or None when the file does not exist.

    Read through :func:`read_bounded` (a regular file of at most 1 MiB; with ``inside``, one
    that resolves under that directory) and depth-checked before it is parsed.
    """
    where = str(path)
    try:
        raw = read_bounded(path, CONFIG_MAX_BYTES, inside=inside)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except InputRefused as exc:
        if exc.size is not None:
            raise OracleError(
                ErrorCode.CONFIG_TOO_LARGE,
                f"The oraculum config {where} {exc.reason}.",
                rejected_value=where,
                suggested_next_step=f"Replace {where} with a small JSON file.",
                details={"file": where, "bytes": exc.size, "limit": CONFIG_MAX_BYTES},
            ) from None
        raise config_error(where, None, exc.reason) from None
    except OSError as exc:
        raise config_error(where, None, f"cannot be read: {exc.strerror or exc}") from None
    depth = json_depth(raw)
    if depth > CONFIG_MAX_DEPTH:
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            f"The oraculum config {where} nests {depth} levels deep; "
            f"the limit is {CONFIG_MAX_DEPTH}.",
            rejected_value=where,
            suggested_next_step=f"Fix {where}, then run `oraculum config check`.",
            details={"file": where, "depth": depth, "limit": CONFIG_MAX_DEPTH},
        )
    try:
        data = json.loads(raw.decode("utf-8"), object_pairs_hook=_refuse_duplicates)
    except UnicodeDecodeError as exc:
        raise config_error(where, None, f"is not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise config_error(
            where,
            None,
            f"is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
        ) from None
    except _DuplicateKeyError as exc:
        raise config_error(where, None, f"repeats the key {exc.args[0]!r}") from None
    if not isinstance(data, dict):
        raise config_error(where, None, "must contain a JSON object at the top level")
    return data


@dataclass(frozen=True)
class LoadedConfig:
    """The effective config plus where each value came from.

    ``sources`` maps every dotted key to ``built-in``, the path of the file that set it, or
    ``arguments``; ``files`` lists the config files that existed and were read, in merge order.
    """

    config: Config
    sources: dict[str, str]
    files: list[Path]


def load_config(
    project_root: Path | None = None, overrides: Mapping[str, Any] | None = None
) -> LoadedConfig:
    """Built-in < global file < project file (if ``project_root``) < ``overrides`` (camelCase)."""
    layers: list[tuple[str, Mapping[str, Any]]] = []
    files: list[Path] = []
    candidates: list[tuple[Path, Sequence[str], Path | None]] = [
        (paths.global_config_path(), ALL_SECTIONS, None)
    ]
    if project_root is not None:
        # A repository's config may not reach outside it (a symlink to /dev/zero, ~/.ssh/…).
        project_file = paths.project_config_path(project_root)
        candidates.append((project_file, PROJECT_SECTIONS, project_root))
    for path, allowed, inside in candidates:
        data = read_config_file(path, inside=inside)
        if data is None:
            continue
        check_layer(data, str(path), allowed)
        if allowed == PROJECT_SECTIONS:
            check_project_bounds(data, str(path))
        layers.append((str(path), data))
        files.append(path)
    if overrides:
        check_layer(overrides, ARGUMENTS, ALL_SECTIONS)
        layers.append((ARGUMENTS, overrides))
    merged, sources = merge_layers(layers)
    return LoadedConfig(validate_config(merged, sources), sources, files)
