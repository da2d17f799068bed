"""The providers oraculum drives, as data: one registry entry each.

Every layer asks here for a provider's facts — its names, the hosts its real site lives on, the
cookies that sign it in, its archive format and ceiling, its prompt cap, the models a caller may
pick (its selection table), how its conversation URLs name a conversation, where its settings
live in the config, and which driver, sign-in check, capture and live probe serve it — so adding
a provider is its own package plus one entry. Nothing here imports a driver: drivers, checks and
probes are loaded by name, where a job or command needs them.

Built-in entries are listed in ``BUILT_IN``. A provider outside oraculum's source (a test's, a
plug-in) calls :func:`register_provider` from a module named in ``$ORACULUM_PROVIDER_MODULES``
(comma-separated): every oraculum process — the CLI, the MCP server, the detached worker —
imports those modules when it first imports this one, so they all see the same registry.
"""

from __future__ import annotations

import importlib
import os
import re
from typing import Any, Final, Literal, NamedTuple
from urllib.parse import urlsplit

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.selection import Choice, SelectionTable

MIB: Final = 1024 * 1024
# Where modules that register providers are named (comma-separated import paths).
PROVIDER_MODULES_ENV: Final = "ORACULUM_PROVIDER_MODULES"
# Neither web app documents a composer limit and the reference facts name none, so the default
# cap is generous: a long prompt belongs in a file, the project in the archive. It exists so a
# runaway input (a log piped in by mistake) is refused before anything is built.
DEFAULT_PROMPT_MAX_BYTES: Final = 8 * MIB

# `/c/<id>` and `/chat/<id>`, at the end of the path (ChatGPT's GPTs live under `/g/<gpt>/c/<id>`).
CONVERSATION_PATH: Final = re.compile(r"/(?:c|chat)/([A-Za-z0-9][A-Za-z0-9_-]{0,127})/?$")
# A conversation id given on its own (not inside a URL).
CONVERSATION_ID: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$")


class CookieNames(NamedTuple):
    """Which of a site's cookies sign a seed profile in: name patterns (whole-name regexes).
    ``session``: at least one must be present; ``allowed``: copied besides; ``noise``: never
    copied (analytics, consent, CSRF, load balancers: some break a sign-in)."""

    session: tuple[str, ...]
    allowed: tuple[str, ...]
    noise: tuple[str, ...]
    synthesize_account: bool = False  # ChatGPT needs an `_account` cookie; make one if absent


# Cookies no provider's sign-in needs.
COMMON_NOISE_COOKIES: Final[tuple[str, ...]] = (
    r"_ga(?:_.*)?",
    r"_uet.*",
    "_rdt_uuid",
    "marketing_consent",
    "analytics_consent",
    "__cf_bm",
    "__cflb",
    "_cfuvid",
    "_dd_s",
    "g_state",
    "country",
    "oai-nav-state",
    r"oai-login-csrf.*",
    r"__Secure-next-auth\.state",
    r"__Host-next-auth\.csrf-token",
)


class ProviderSpec(NamedTuple):
    name: str
    label: str
    aliases: tuple[str, ...]
    hosts: frozenset[str]  # the real site's hosts; a config URL must be one (or loopback)
    cookie_domains: frozenset[str]  # whose cookies sign a seed profile in
    cookies: CookieNames
    archive_suffix: str
    archive_compression: Literal["zstd", "gzip"]
    max_archive_bytes: int  # the site's upload ceiling; an archive must be strictly smaller
    selection: SelectionTable | None  # the models a caller may pick (None: no choice)
    driver: str  # "module:Class", the worker's browser flow (loaded on demand)
    default_chat_url: str  # the real site's new-chat page
    default_auth_url: str  # where a user signs in
    # Where a provider's settings live in the config, if it has any (browser.* URL fields,
    # archive.* ceiling); without them its defaults above apply.
    chat_url_key: str | None = None
    auth_url_key: str | None = None
    max_bytes_key: str | None = None
    # "module:Class" of the page check `oraculum auth` signs a seed in with (None: no sign-in).
    sign_in_check: str | None = None
    # "module:Class" of doctor's look at the signed-in page (a `providers.base.LiveProbe`;
    # None: doctor checks the seed only).
    live_probe: str | None = None
    # "module:function" reading one bound reply, `async (page, CaptureRequest) -> TurnCapture`,
    # for a provider with its own capture root (None: the shared capture.js).
    capture: str | None = None
    max_prompt_bytes: int = DEFAULT_PROMPT_MAX_BYTES  # the largest prompt (UTF-8 bytes) it takes
    seed_suffix: str = ""  # the seed profile's directory is the configured one plus this
    explicit_threads: bool = False  # a caller may name an existing conversation to continue
    dry_run: bool = False  # no browser and no sign-in: the pipeline only
    conversation_path: re.Pattern[str] = CONVERSATION_PATH
    # Where a conversation lives under the site's origin (None: `<chat URL>/c/<id>`).
    conversation_root: str | None = None

    def conversation_id(self, url: str | None) -> str | None:
        """The conversation a URL of this provider names, else None."""
        if not url:
            return None
        try:
            path = urlsplit(url).path
        except ValueError:
            return None
        match = self.conversation_path.search(path)
        return match.group(1) if match else None

    def parse_conversation(self, value: str) -> str | None:
        """A conversation id, or the one a URL of this provider names; None if neither."""
        text = value.strip()
        if "/" in text:
            return self.conversation_id(text)
        return text if CONVERSATION_ID.fullmatch(text) else None

    def conversation_url(self, chat_url: str, conversation_id: str) -> str:
        if self.conversation_root is not None:
            parts = urlsplit(chat_url)
            return f"{parts.scheme}://{parts.netloc}{self.conversation_root}{conversation_id}"
        return f"{chat_url.rstrip('/')}/c/{conversation_id}"

    def urls(self, browser_config: Any) -> tuple[str, str]:
        """(chat URL, auth URL) from the config's browser section, else the defaults."""
        chat = getattr(browser_config, self.chat_url_key) if self.chat_url_key else None
        auth = getattr(browser_config, self.auth_url_key) if self.auth_url_key else None
        return chat or self.default_chat_url, auth or self.default_auth_url

    def archive_ceiling(self, archive_config: Any) -> int:
        """The archive ceiling from the config's archive section, else the site's."""
        if self.max_bytes_key is None:
            return self.max_archive_bytes
        return int(getattr(archive_config, self.max_bytes_key))

    def load_driver(self) -> Any:
        """A new instance of the provider's browser flow (a ``providers.base.Provider``)."""
        return load_named(self.driver)()


# The ChatGPT presets, as the reference table gives them (a model family and an effort each).
CHATGPT_PRESETS: Final = SelectionTable(
    key="preset",
    choices=(
        Choice("pro_standard", "Pro - Standard", "pro", "standard"),
        Choice("pro_extended", "Pro - Extended", "pro", "extended"),
        Choice("thinking_light", "Thinking - Light", "thinking", "light"),
        Choice("thinking_standard", "Thinking - Standard", "thinking", "standard"),
        Choice("thinking_extended", "Thinking - Extended", "thinking", "extended"),
        Choice("thinking_heavy", "Thinking - Heavy", "thinking", "heavy"),
        Choice("instant", "Instant", "instant", None),
        Choice(
            "instant_auto_switch",
            "Instant - Auto-switch to Thinking Enabled",
            "instant",
            None,
            auto_switch_to_thinking=True,
        ),
        # Deep Research is a composer tool, not a model; "pro" is nominal and no effort is set.
        Choice("deep_research", "Deep Research", "pro", None, tool="deep_research"),
    ),
    default_key="preset",
    noun="preset",
    unknown="Unknown preset",
    use="Use one of the canonical ids ({ids}) or a matching preset label.",
    next_step="Run `oraculum presets` to list the presets.",
)
GROK_MODES: Final = SelectionTable(
    key="mode",
    choices=(
        Choice(
            "heavy", "Grok Heavy", "grok", "heavy", aliases=("heavy", "grok heavy", "grok-heavy")
        ),
    ),
    default_key="grok_mode",
    unknown="Unknown Grok mode",
    use="Use one of the Grok modes ({ids}).",
    next_step="Omit the preset for Grok's default mode, or choose provider chatgpt.",
)

CHATGPT: Final = ProviderSpec(
    name="chatgpt",
    label="ChatGPT",
    aliases=("chatgpt", "chat-gpt", "openai"),
    hosts=frozenset({"chatgpt.com", "chat.openai.com"}),
    cookie_domains=frozenset(
        {
            "chatgpt.com",
            "chat.openai.com",
            "openai.com",
            "auth.openai.com",
            "sentinel.openai.com",
            "atlas.openai.com",
            "ws.chatgpt.com",
        }
    ),
    cookies=CookieNames(
        session=(r"__Secure-next-auth\.session-token(?:\.\d+)?",),
        allowed=(
            r"__Secure-next-auth\.callback-url",
            "_account",
            "_account_is_fedramp",
            "_puid",
            "unified_session_manifest",
            "oai-client-auth-info",
            "oai-client-auth-session",
            "oai-sc",
            "oai-did",
            "oai-hlib",
            "oai-asli",
            "oai-last-model-config",
            "oai-chat-web-route",
            "auth-session-minimized",
            "auth-session-minimized-client-checksum",
            "login_session",
            "auth_provider",
            "hydra_redirect",
            "iss_context",
            "rg_context",
            "cf_clearance",
        ),
        noise=COMMON_NOISE_COOKIES,
        synthesize_account=True,
    ),
    archive_suffix=".tar.zst",
    archive_compression="zstd",
    max_archive_bytes=250 * MIB,
    selection=CHATGPT_PRESETS,
    driver="oraculum.providers.chatgpt.provider:ChatGPTProvider",
    sign_in_check="oraculum.auth.verify:ChatGPTCheck",
    live_probe="oraculum.providers.chatgpt.probe:ChatGPTLiveProbe",
    default_chat_url="https://chatgpt.com/",
    default_auth_url="https://chatgpt.com/auth/login",
    chat_url_key="chat_url",
    auth_url_key="auth_url",
    max_bytes_key="chatgpt_max_bytes",
    explicit_threads=True,
)
GROK: Final = ProviderSpec(
    name="grok",
    label="Grok",
    aliases=("grok", "xai", "x.ai"),
    hosts=frozenset({"grok.com"}),
    cookie_domains=frozenset({"grok.com", "x.ai", "accounts.x.ai", "x.com"}),
    # Grok signs in through x.ai's accounts service: `sso` / `sso-rw` carry the session.
    cookies=CookieNames(
        session=("sso", "sso-rw"),
        allowed=("x-userid", "x-anonuserid", "x-challenge", "cf_clearance"),
        noise=COMMON_NOISE_COOKIES,
    ),
    archive_suffix=".tar.gz",
    archive_compression="gzip",
    max_archive_bytes=200 * MIB,
    selection=GROK_MODES,
    driver="oraculum.providers.grok.provider:GrokProvider",
    sign_in_check="oraculum.auth.verify:GrokCheck",
    capture="oraculum.providers.grok.page:capture",
    default_chat_url="https://grok.com/",
    default_auth_url="https://grok.com/",
    chat_url_key="grok_url",
    auth_url_key="grok_url",  # Grok signs in on its chat page
    max_bytes_key="grok_max_bytes",
    seed_suffix="-grok",
)
# Gemini's modes (facts §1.4: Fast / Thinking / Pro in the picker; Deep Think only on accounts
# that have it). Pro first: the default, as the reference tools default to Gemini's Pro model.
GEMINI_MODES: Final = SelectionTable(
    key="mode",
    choices=(
        Choice("pro", "Gemini Pro", "gemini", "pro", aliases=("gemini-pro",)),
        Choice("thinking", "Gemini Thinking", "gemini", "thinking", aliases=("gemini-thinking",)),
        Choice("fast", "Gemini Fast", "gemini", "fast", aliases=("flash", "gemini-flash")),
        Choice("deep_think", "Gemini Deep Think", "gemini", "deep_think", aliases=("deepthink",)),
    ),
    unknown="Unknown Gemini mode",
    use="Use one of the Gemini modes ({ids}).",
    next_step="Run `oraculum presets` to list every provider's choices.",
)
# Gemini's conversations are `/app/<16 hex>` (facts §1.1).
GEMINI_CONVERSATION_PATH: Final = re.compile(r"/app/([A-Za-z0-9][A-Za-z0-9_-]{0,127})/?$")
GEMINI: Final = ProviderSpec(
    name="gemini",
    label="Gemini",
    aliases=("gemini", "gemini-web"),
    hosts=frozenset({"gemini.google.com"}),
    cookie_domains=frozenset({"google.com", "gemini.google.com", "accounts.google.com"}),
    # Facts §1.2: `__Secure-1PSID` and `__Secure-1PSIDTS` on `.google.com` sign Gemini in.
    cookies=CookieNames(
        session=(r"__Secure-1PSID", r"__Secure-1PSIDTS"),
        allowed=(
            r"__Secure-1PSIDCC",
            r"__Secure-1PAPISID",
            r"__Secure-3PSID(?:TS|CC)?",
            r"__Secure-3PAPISID",
            "__Secure-ENID",
            "__Secure-BUCKET",
            "NID",
            "AEC",
            "SOCS",
            "SID",
            "HSID",
            "SSID",
            "APISID",
            "SAPISID",
            "SIDCC",
        ),
        noise=COMMON_NOISE_COOKIES,
    ),
    # Facts §1.6: no source says Gemini's picker takes archives; it advertises "Documents, data,
    # code files". The context goes up as one .tar.gz like Grok's (see docs/gemini.md).
    archive_suffix=".tar.gz",
    archive_compression="gzip",
    max_archive_bytes=100 * MIB,  # facts §1.6: 100 MB for most files
    selection=GEMINI_MODES,
    driver="oraculum.providers.gemini.provider:GeminiProvider",
    sign_in_check="oraculum.auth.verify:GeminiCheck",
    live_probe="oraculum.providers.gemini.probe:GeminiLiveProbe",
    capture="oraculum.providers.gemini.page:capture",
    default_chat_url="https://gemini.google.com/app",
    default_auth_url="https://gemini.google.com/app",
    chat_url_key="gemini_url",
    auth_url_key="gemini_url",  # Gemini signs in from its app page (a Google account)
    max_bytes_key="gemini_max_bytes",
    seed_suffix="-gemini",
    conversation_path=GEMINI_CONVERSATION_PATH,
    conversation_root="/app/",
)
# The dry run takes ChatGPT's archive and URL facts (its jobs look like ChatGPT jobs up to the
# browser), and none of its site: no hosts, no cookies, no sign-in, no browser.
TEST: Final = CHATGPT._replace(
    name="test",
    label="Test (dry run)",
    aliases=("test",),
    hosts=frozenset(),
    cookie_domains=frozenset(),
    cookies=CookieNames(session=(), allowed=(), noise=()),
    selection=None,
    driver="oraculum.providers.testing:TestProvider",
    sign_in_check=None,
    live_probe=None,
    dry_run=True,
)


def load_named(path: str) -> Any:
    """The object a "module:name" path names (imported on demand)."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


BUILT_IN: Final[tuple[ProviderSpec, ...]] = (CHATGPT, GROK, GEMINI, TEST)
# Every provider by name, built-in entries first, then registered ones in registration order.
REGISTRY: Final[dict[str, ProviderSpec]] = {}
_NON_WORD = re.compile(r"[\W_]+")
_ALIASES: Final[dict[str, str]] = {}


def _alias_key(value: str) -> str:
    return _NON_WORD.sub("", value.strip().lower())


def register_provider(spec: ProviderSpec) -> ProviderSpec:
    """Add ``spec`` to the registry. Its name and aliases must be new: a collision is a bug in
    the registering package, so it raises instead of shadowing a provider."""
    keys = {_alias_key(alias) for alias in (spec.name, *spec.aliases)}
    taken = sorted(key for key in keys if key in _ALIASES)
    if spec.name in REGISTRY or taken:
        raise ValueError(f"provider {spec.name!r} collides with a registered one: {taken}")
    REGISTRY[spec.name] = spec
    _ALIASES.update(dict.fromkeys(keys, spec.name))
    return spec


def unregister_provider(name: str) -> None:
    """Remove a registered provider (a test's, when it is done with it); built-ins stay."""
    if any(spec.name == name for spec in BUILT_IN):
        raise ValueError(f"{name!r} is built in")
    REGISTRY.pop(name, None)
    for key in [key for key, owner in _ALIASES.items() if owner == name]:
        del _ALIASES[key]


def load_provider_modules(value: str | None) -> None:
    """Import each module ``value`` names (comma-separated); each registers its providers."""
    for module in (part.strip() for part in (value or "").split(",")):
        if not module:
            continue
        try:
            importlib.import_module(module)
        except ImportError as exc:  # say which setting named it: nothing else would
            raise ImportError(
                f"${PROVIDER_MODULES_ENV} names {module}, which fails: {exc}"
            ) from exc


def browser_providers() -> tuple[str, ...]:
    """The providers with a real site (what a config default, auth and archives may name)."""
    return tuple(name for name, spec in REGISTRY.items() if not spec.dry_run)


def canonical_name(value: str, *, dry_run: bool = True) -> str | None:
    """The provider ``value`` names (any alias, any case), or None."""
    name = _ALIASES.get(_alias_key(value))
    if name is None or (not dry_run and REGISTRY[name].dry_run):
        return None
    return name


def provider_spec(value: Any, *, dry_run: bool = True) -> ProviderSpec:
    """The registry entry ``value`` names, or ``invalid_provider`` listing the choices."""
    name = canonical_name(value, dry_run=dry_run) if isinstance(value, str) else None
    if name is None:
        allowed = [n for n, s in REGISTRY.items() if dry_run or not s.dry_run]
        raise OracleError(
            ErrorCode.INVALID_PROVIDER,
            f"Unknown provider: {value}. Use one of: {', '.join(allowed)}.",
            rejected_value=value,
            allowed_values=allowed,
        )
    return REGISTRY[name]


def conversation_id_from_url(url: str | None) -> str | None:
    """The conversation a provider URL names (every provider's paths agree), else None."""
    for spec in REGISTRY.values():
        found = spec.conversation_id(url)
        if found:
            return found
    return None


for _spec in BUILT_IN:
    register_provider(_spec)
# Last, so that a registering module finds every name above defined.
load_provider_modules(os.environ.get(PROVIDER_MODULES_ENV))
