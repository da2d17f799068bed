"""`doctor`: what would make the next job fail, one check at a time; with ``live``, whether the
provider's page still shows every control the driver's vocabulary names.

Doctor is the superset of `selfcheck` and `preflight` and reuses their checks (the config, the
Chromium launch, the seed profile and its session cookie, capacity); it adds directory modes,
whether the archive's C hot path is built, stale leases, staging leftovers, job leftovers
(runtime profiles and space reserves a killed job left) and the identity probe `oraculum auth`
verifies with. It reports and never repairs: nothing is created, swept, released or deleted,
except the throwaway clone of the seed it opens the provider's page on, which is always removed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import stat
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oraculum.auth.seed import staging_entries, sweep_choice
from oraculum.auth.seed_check import seed_session_problem
from oraculum.browser.chromium import resolve_executable
from oraculum.browser.errors import classify_browser_error, first_line
from oraculum.browser.profile import remove_profile
from oraculum.browser.session import LaunchOptions, browser_on_profile
from oraculum.core.config import Config, load_config, provider_urls, seed_profile_dir
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.fsio import DIR_MODE
from oraculum.core.paths import data_dir, jobs_dir, state_dir
from oraculum.core.presets import resolve_selection
from oraculum.core.providers import CHATGPT, REGISTRY, ProviderSpec, load_named, provider_spec
from oraculum.core.surface import Surface, for_surface
from oraculum.jobs.admission import Capacity, capacity, lease_is_live
from oraculum.jobs.leases import CONVERSATION, RUNTIME, Lease, list_leases
from oraculum.jobs.leftovers import orphan_profiles, stray_reserves
from oraculum.jobs.process import kill_profile_processes
from oraculum.jobs.store import JobStore
from oraculum.providers.base import LiveProbe, PlanProbe
from oraculum.providers.browser_job import clone_seed_under_auth_lock
from oraculum.service.caller import Caller
from oraculum.service.common import TEST_PROVIDER, check_seed_profile
from oraculum.service.selfcheck import launch_blank

OK, WARN, FAIL = "ok", "warn", "fail"
# The throwaway runtime profile's name starts with this (a job's is a bare uuid hex).
PROFILE_PREFIX = "doctor-"
# Readiness timed out on a page that is neither signed out, a challenge nor an outage.
NOT_READY_CODE = ErrorCode.PROVIDER_NOT_READY


@dataclass(frozen=True)
class Check:
    check: str
    status: str  # ok | warn | fail
    detail: str
    next_step: str | None = None
    code: str | None = None  # the stable error code behind a failure, when there is one

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"check": self.check, "status": self.status, "detail": self.detail}
        if self.next_step:
            out["nextStep"] = self.next_step
        if self.code:
            out["code"] = self.code
        return out


def failed(name: str, error: OracleError) -> Check:
    return Check(name, FAIL, error.message, error.suggested_next_step, error.code)


# Pure decisions -----------------------------------------------------------------------------


@dataclass(frozen=True)
class DirFacts:
    path: Path
    exists: bool
    is_dir: bool
    mode: int | None
    writable: bool


def directory_check(label: str, facts: DirFacts, *, code: str | None = None) -> Check:
    """A directory oraculum writes: missing is fine (made 0700 on first use), not writable
    fails, a mode other than 0700 is a warning (jobs work, but others can read them)."""
    path = facts.path
    if not facts.exists:
        return Check(label, WARN, f"{path} does not exist yet; it is created (0700) on first use.")
    if not facts.is_dir:
        return Check(
            label, FAIL, f"{path} is not a directory.", f"Move {path} out of the way.", code
        )
    if not facts.writable:
        return Check(
            label,
            FAIL,
            f"{path} is not writable.",
            f"Fix its permissions (`chmod 700 {path}`) or point oraculum elsewhere.",
            code,
        )
    if facts.mode != DIR_MODE:
        return Check(
            label,
            WARN,
            f"{path} has mode {facts.mode:04o}, not 0700: other users can look inside.",
            f"chmod 700 {path}",
        )
    return Check(label, OK, f"{path} (0700, writable)")


def seed_mode_check(facts: DirFacts) -> Check:
    """The seed holds the provider's session cookies: nobody else should read it."""
    if facts.mode is None or facts.mode == DIR_MODE:
        return Check("seed profile mode", OK, f"{facts.path} (0700)")
    return Check(
        "seed profile mode",
        WARN,
        f"{facts.path} has mode {facts.mode:04o}, not 0700: other users can read the session.",
        f"chmod 700 {facts.path}",
    )


def capacity_check(cap: Capacity) -> Check:
    line = cap.line()
    if cap.queued >= cap.max_queued:
        return Check(
            "capacity",
            WARN,
            f"{line} The queue is full: a submit is refused with queue_full.",
            "Wait for running jobs to finish, or cancel some (`oraculum status`).",
        )
    if cap.active >= cap.max_active:
        return Check("capacity", WARN, f"{line} Every slot is busy: a new job waits in the queue.")
    return Check("capacity", OK, line)


def leases_check(stale: list[Lease]) -> Check:
    if not stale:
        return Check("stale leases", OK, "No lease outlived its job.")
    owners = ", ".join(f"{lease.kind} lease of job {lease.job_id}" for lease in stale)
    return Check(
        "stale leases",
        WARN,
        f"{len(stale)} lease(s) outlived their job and no longer block anything: {owners}.",
        "Nothing to do: whoever next needs the slot drops them.",
    )


def staging_check(submit_leftovers: list[Path], auth_leftovers: list[Path]) -> Check:
    if not submit_leftovers and not auth_leftovers:
        return Check("staging leftovers", OK, "No staging directory outlived its process.")
    parts = []
    steps = []
    if submit_leftovers:
        parts.append(
            f"{len(submit_leftovers)} submit staging entr"
            f"{'y' if len(submit_leftovers) == 1 else 'ies'} whose process is gone: "
            + ", ".join(str(p) for p in submit_leftovers)
        )
        steps.append("`oraculum clean --expired` (or the next submit) removes the submit ones")
    if auth_leftovers:
        parts.append(
            f"{len(auth_leftovers)} sign-in staging profile(s) from a run that did not finish: "
            + ", ".join(str(p) for p in auth_leftovers)
        )
        steps.append("the next `oraculum auth` removes the sign-in ones")
    return Check("staging leftovers", WARN, "; ".join(parts) + ".", "; ".join(steps) + ".")


def leftovers_check(profiles: list[Path], reserves: list[Path]) -> Check:
    """Runtime profiles and `.space-reserve` files a killed job left (see jobs.leftovers)."""
    if not profiles and not reserves:
        return Check("job leftovers", OK, "No runtime profile or space reserve outlived its job.")
    parts = []
    if profiles:
        parts.append(
            f"{len(profiles)} runtime profile(s) no job uses: " + ", ".join(map(str, profiles))
        )
    if reserves:
        parts.append(
            f"{len(reserves)} `.space-reserve` file(s) of jobs that no longer run: "
            + ", ".join(map(str, reserves))
        )
    return Check(
        "job leftovers",
        WARN,
        "; ".join(parts) + ".",
        "The periodic reconcile of a long-lived oraculum process (the `proc` supervisor, the "
        "scheduler runner) removes left-over profiles; a finished job's `.space-reserve` may "
        "simply be deleted.",
    )


def identity_check(status: int, identity: str | None, provider_label: str) -> Check:
    if status == 200:
        who = f" as {identity}" if identity else ""
        return Check("seed identity", OK, f"{provider_label} knows the session{who}.")
    return Check(
        "seed identity",
        FAIL,
        f"The identity probe answered HTTP {status or 'nothing'}: {provider_label} does not "
        "accept the seed's session.",
        "Run `oraculum auth` to sign in again.",
        ErrorCode.AUTH_LOGIN_REQUIRED,
    )


def vocabulary_check(entries: list[Any]) -> Check:
    broken = [e.entry for e in entries if not e.ok]
    if not broken:
        return Check("live vocabulary", OK, f"All {len(entries)} entries match the page.")
    return Check(
        "live vocabulary",
        FAIL,
        f"No longer matches the page: {', '.join(broken)}.",
        "ChatGPT's UI changed: upgrade oraculum, or report the table above with the page's "
        "version.",
        ErrorCode.PROVIDER_UI_DRIFT,
    )


def plan_check(preset: str, refusal: OracleError | None) -> Check:
    """Issue 38 §7: the configured preset against what the picker showed locked."""
    if refusal is None:
        return Check("preset plan", OK, f"The model picker does not show {preset} locked.")
    return Check("preset plan", WARN, refusal.message, refusal.suggested_next_step, refusal.code)


_MARKS = {OK: "ok  ", WARN: "warn", FAIL: "FAIL"}


@dataclass(frozen=True)
class DoctorReport:
    """Every check in the order a job meets them; with ``live``, the page's vocabulary table.

    A failing report still is the output (its `error` names the failed checks); the failure
    only sets the exit code (`doctor_failed`)."""

    provider: str
    checks: tuple[Check, ...]
    live: dict[str, Any] | None = None  # {"url", "entries": [probe entries' JSON]}

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def problems(self) -> list[Check]:
        return [c for c in self.checks if c.status == FAIL]

    @property
    def error(self) -> OracleError | None:
        problems = self.problems
        if not problems:
            return None
        return OracleError(
            ErrorCode.DOCTOR_FAILED,
            f"oraculum doctor found {len(problems)} problem(s): "
            + ", ".join(c.check for c in problems)
            + ".",
            suggested_next_step=problems[0].next_step,
            details={"failed": [c.check for c in problems]},
        )

    @property
    def verdict(self) -> str:
        return "no problems found" if self.ok else "problems found"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ok": self.ok,
            "provider": self.provider,
            "checks": [c.to_json() for c in self.checks],
        }
        if self.live is not None:
            out["live"] = self.live
        error = self.error
        if error is not None:
            out["error"] = error.to_dict()
        return out

    def text(self, surface: Surface) -> str:
        lines: list[str] = []
        for c in self.checks:
            lines.append(f"{_MARKS[c.status]}  {c.check}: {c.detail}")
            if c.next_step:
                step = for_surface(c.next_step, surface) or c.next_step
                lines.append(f"        next step: {step}")
        if self.live is not None and self.live["entries"]:
            lines.append(f"live vocabulary at {self.live['url']}:")
            lines += [_entry_line(entry) for entry in self.live["entries"]]
        lines.append(f"doctor ({self.provider}): {self.verdict}")
        return "\n".join(lines)


def _entry_line(entry: dict[str, Any]) -> str:
    mark = "ok" if entry["ok"] else "NO"
    return f"  {mark}  {entry['entry']}: expected {entry['expected']}; found {entry['found']}"


# Reading the machine ------------------------------------------------------------------------


def dir_facts(path: Path) -> DirFacts:
    try:
        info = path.stat()
    except FileNotFoundError:
        return DirFacts(path, False, False, None, False)
    except OSError:
        return DirFacts(path, True, False, None, False)
    is_dir = stat.S_ISDIR(info.st_mode)
    writable = is_dir and os.access(path, os.W_OK | os.X_OK)
    return DirFacts(path, True, is_dir, stat.S_IMODE(info.st_mode), writable)


def _config_check(caller: Caller) -> tuple[Check, Config | None]:
    try:
        # Loaded here, not as `caller.config`: the check names the files it read.
        loaded = load_config(caller.root, caller.overrides)
    except OracleError as error:
        return failed("config", error), None
    files = ", ".join(str(p) for p in loaded.files) or "built-in defaults only"
    return Check("config", OK, f"valid ({files})"), loaded.config


def _directory_checks(config: Config | None) -> list[Check]:
    wanted: list[tuple[str, Path, ErrorCode | None]] = [
        ("jobs dir", jobs_dir(), ErrorCode.JOBS_DIR_UNWRITABLE),
        ("state dir", state_dir(), None),
        ("data dir", data_dir(), None),
    ]
    if config is not None:
        runtime = config.browser.runtime_profiles_dir
        wanted.append(("runtime profiles dir", runtime, ErrorCode.RUNTIME_PROFILES_DIR_UNWRITABLE))
    return [directory_check(label, dir_facts(path), code=code) for label, path, code in wanted]


async def _chromium_checks(config: Config | None) -> list[Check]:

    configured = config.browser.executable_path if config is not None else None
    try:
        executable = resolve_executable(str(configured) if configured else None)
    except OracleError as error:
        return [failed("chromium", error)]
    found = Check("chromium", OK, str(executable))
    extra = tuple(config.browser.args) if config is not None else ()
    try:
        text = await launch_blank(executable, extra)
    except Exception as exc:  # a launch failure is a finding, not a crash
        text = first_line(exc)[:500]
    if text == "ready":
        return [found, Check("chromium launch", OK, "a headless launch showed a page")]
    return [
        found,
        Check(
            "chromium launch",
            FAIL,
            f"Chromium did not start: {text}",
            "Run ./scripts/bootstrap, which installs what Chromium needs.",
            ErrorCode.BROWSER_LAUNCH_FAILED,
        ),
    ]


async def _attached_check(config: Config, provider: str) -> Check:
    """The managed or relay browser proves its endpoint (docs/transports.md); the keeper is
    only looked at, never started."""
    from oraculum.browser import keeper
    from oraculum.browser.relay import prove_relay

    try:
        if config.browser.transport == "relay":
            relay = config.browser.relay
            found = await prove_relay(relay.endpoint, enabled=relay.enabled)
            return Check("relay browser", OK, f"{relay.endpoint}: Chrome {found.browser_id}")
        from oraculum.auth.seed_check import managed_session_problem

        problem = None
        if provider != TEST_PROVIDER:  # the test provider signs in nowhere
            problem = await managed_session_problem(config, provider)
        if problem is not None:
            raise problem
        record = keeper.read_record()
        if record is None or not keeper.keeper_alive(record):
            return Check("managed browser", WARN, "signed in, not running; the next job starts it")
        found = await keeper.prove_keeper(record)
        return Check("managed browser", OK, f"running and signed in, DevTools on {found.http_url}")
    except OracleError as error:
        name = "relay browser" if config.browser.transport == "relay" else "managed browser"
        return failed(name, error)


def _seed_checks(config: Config, provider: str) -> tuple[list[Check], Path | None]:
    """The seed is there and holds a session cookie (preflight's two checks); the seed path
    whenever it is there, so the page can be opened on a clone of it (the live probe runs
    even when the cookie check failed, and both are reported)."""

    try:
        seed = check_seed_profile(config, provider)
    except OracleError as error:
        return [failed("seed profile", error)], None
    checks = [Check("seed profile", OK, str(seed)), seed_mode_check(dir_facts(seed))]
    chat_url, _ = provider_urls(config, provider)
    problem = seed_session_problem(seed, provider, chat_url)
    if problem is not None:
        return [*checks, failed("seed session cookie", problem)], seed
    return [*checks, Check("seed session cookie", OK, "a session cookie is stored")], seed


def _housekeeping_checks(store: JobStore, config: Config, provider: str) -> list[Check]:

    stale = [
        lease
        for kind in (RUNTIME, CONVERSATION)
        for lease in list_leases(kind)
        if not lease_is_live(store, lease)
    ]
    auth_leftovers = sweep_choice(staging_entries(seed_profile_dir(config, provider)))
    return [
        capacity_check(capacity(store, config)),
        leases_check(stale),
        staging_check(store.stale_staging(), auth_leftovers),
        leftovers_check(
            orphan_profiles(store, config.browser.runtime_profiles_dir), stray_reserves(store)
        ),
    ]


# The provider's page, on a throwaway clone of the seed ----------------------------------------


@contextlib.asynccontextmanager
async def throwaway_profile(config: Config, seed: Path) -> AsyncIterator[Path]:
    """A clone of ``seed`` under the runtime profiles dir, cloned under the auth lock as a
    job's is; removed, with any browser still on it, however the block ends."""

    target = config.browser.runtime_profiles_dir / (
        f"{PROFILE_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
    )
    await asyncio.to_thread(clone_seed_under_auth_lock, seed, target)
    try:
        yield target
    finally:
        kill_profile_processes(target)  # the context closed it; this catches a hung close
        remove_profile(target)


async def _page_checks(
    config: Config, spec: ProviderSpec, seed: Path, live: bool
) -> tuple[list[Check], dict | None]:
    """The identity probe (ChatGPT's `/backend-api/me`, as `oraculum auth` verifies with) and,
    with ``live``, the vocabulary probe of the ready chat page: the provider's `LiveProbe`.
    Nothing is typed or sent."""

    chat_url, _ = provider_urls(config, spec.name)
    probe_class = load_named(str(spec.live_probe))
    checks: list[Check] = []
    live_part: dict[str, Any] | None = None
    step = "seed identity"
    try:
        async with (
            throwaway_profile(config, seed) as profile,
            browser_on_profile(profile, LaunchOptions.from_config(config)) as context,
        ):
            page = context.pages[0] if context.pages else await context.new_page()
            await page.goto(chat_url)
            probe: LiveProbe = probe_class(page)
            checks.append(identity_check(*await probe.identity(), spec.label))
            if live:  # a failed identity probe is reported beside the live probe's findings
                step, live_part = "live page", {"url": chat_url, "entries": []}
                checks.extend(await _live(page, config, probe, live_part))
                checks.extend(_plan_checks(config, spec, probe))
    except Exception as exc:
        checks.append(failed(step, classify_browser_error(exc)))
    return checks, live_part


async def _live(
    page: Any, config: Config, probe: LiveProbe, live_part: dict[str, Any]
) -> list[Check]:
    try:
        await probe.wait_ready(config)
    except OracleError as error:
        if error.code not in (NOT_READY_CODE, ErrorCode.PAGE_OBSTRUCTED):
            return [failed("live page", error)]  # signed out, a challenge, an outage: not drift
        ready = failed("live page", error)  # it loaded but never looked ready: the probe says why
    else:
        ready = Check("live page", OK, f"ready at {page.url}")
    entries = await probe.entries()
    live_part["entries"] = [e.to_json() for e in entries]
    return [ready, vocabulary_check(entries)]


def _plan_checks(config: Config, spec: ProviderSpec, probe: LiveProbe) -> list[Check]:
    """The configured default preset, when the live page said which models the plan lacks."""
    selection = resolve_selection(spec.name, None, config)
    if selection.preset is None or not isinstance(probe, PlanProbe):
        return []
    return [plan_check(selection.preset, probe.plan_refusal(selection.to_json_dict()))]


def live_warnings(config: Config, provider: str, seed: Path) -> list[Check]:
    """`preflight --live`: what the live page says a ready submit would still meet (a preset
    the plan lacks, drift, a stale session), as the checks of doctor's look at it that are
    not ok."""
    spec = provider_spec(provider)
    if spec.live_probe is None:
        return [_no_live_probe(spec)]
    checks, _ = asyncio.run(_page_checks(config, spec, seed, True))
    return [check for check in checks if check.status != OK]


# --live when a check above already failed: the page was not opened.
NOT_PROBED = Check(
    "live page",
    WARN,
    "Not opened: the live probe needs a valid config and a signed-in seed profile (see the "
    "failed checks above).",
)


def _no_live_probe(spec: ProviderSpec) -> Check:
    """--live for a provider whose registry entry names no live probe."""
    probed = [s for s in REGISTRY.values() if s.live_probe]
    return Check(
        "live page",
        WARN,
        f"Not yet: the live probe knows {', '.join(s.label for s in probed)}'s page only; "
        f"{spec.label}'s page is not checked.",
        " ".join(
            f"Run `oraculum doctor --live --provider {p.name}` for {p.label}." for p in probed
        ),
        ErrorCode.PROVIDER_UNSUPPORTED,
    )


# The operation --------------------------------------------------------------------------------


def doctor(
    provider: str | None = None,
    *,
    live: bool = False,
    caller: Caller | None = None,
) -> DoctorReport:
    """Every check, in the order a job meets them (see :class:`DoctorReport`)."""
    return asyncio.run(_doctor(provider, live=live, caller=caller or Caller()))


def choose_doctor_provider(provider: str) -> str:
    """A real provider by any alias (the registry's `invalid_provider` otherwise)."""
    return provider_spec(provider, dry_run=False).name


async def _doctor(provider: str | None, *, live: bool, caller: Caller) -> DoctorReport:
    wanted = choose_doctor_provider(provider) if provider is not None else None
    store = caller.store
    config_check, config = _config_check(caller)
    chosen = wanted or (config.defaults.provider if config is not None else CHATGPT.name)
    spec = provider_spec(chosen)
    checks = [config_check, *_directory_checks(config)]
    checks += await _chromium_checks(config)
    live_part = None
    if config is not None and config.browser.transport != "isolated":
        # Managed and relay: signed in by hand in an attached browser, so no seed to check.
        checks += [
            await _attached_check(config, chosen),
            *_housekeeping_checks(store, config, chosen),
        ]
    elif config is not None:
        seed_checks, seed = _seed_checks(config, chosen)
        checks += [*seed_checks, *_housekeeping_checks(store, config, chosen)]
        if spec.live_probe is None:
            checks += [_no_live_probe(spec)] if live else []
        elif seed is not None and (live or all(c.status != FAIL for c in seed_checks)):
            page_checks, live_part = await _page_checks(config, spec, seed, live)
            checks += page_checks
    if live and spec.live_probe is not None and live_part is None:
        checks.append(NOT_PROBED)
    return DoctorReport(chosen, tuple(checks), live_part)
