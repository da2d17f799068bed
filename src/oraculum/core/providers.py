"""The providers oraculum drives, as data: one registry entry each.

Every layer asks here for a provider's facts — its names, the hosts its real site lives on, the
cookies that sign it in, its archive format and ceiling, how its conversation URLs name a
conversation, where its settings live in the config, and which driver the worker runs — so
adding a provider is its own package plus one entry in ``REGISTRY``. Nothing here imports the
driver: it is loaded by name, in the worker, when a job needs it.
"""

from __future__ import annotations

import importlib
import re
from typing import Any, Final, Literal, NamedTuple
from urllib.parse import urlsplit

from oraculum.core.errors import OracleError

MIB: Final = 1024 * 1024

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
    selection: Literal["preset", "mode", "none"]  # how a caller picks the model
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
    seed_suffix: str = ""  # the seed profile's directory is the configured one plus this
    explicit_threads: bool = False  # a caller may name an existing conversation to continue
    dry_run: bool = False  # no browser and no sign-in: the pipeline only
    conversation_path: re.Pattern[str] = CONVERSATION_PATH

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
    selection="preset",
    driver="oraculum.providers.chatgpt.provider:ChatGPTProvider",
    sign_in_check="oraculum.auth.verify:ChatGPTCheck",
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
    selection="mode",
    driver="oraculum.providers.grok.provider:GrokProvider",
    sign_in_check="oraculum.auth.verify:GrokCheck",
    default_chat_url="https://grok.com/",
    default_auth_url="https://grok.com/",
    chat_url_key="grok_url",
    auth_url_key="grok_url",  # Grok signs in on its chat page
    max_bytes_key="grok_max_bytes",
    seed_suffix="-grok",
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
    selection="none",
    driver="oraculum.providers.testing:TestProvider",
    sign_in_check=None,
    dry_run=True,
)


def load_named(path: str) -> Any:
    """The object a "module:name" path names (imported on demand)."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


REGISTRY: Final[dict[str, ProviderSpec]] = {spec.name: spec for spec in (CHATGPT, GROK, TEST)}
# The providers with a real site (what a config default, auth and archives may name).
BROWSER_PROVIDERS: Final[tuple[str, ...]] = tuple(
    name for name, spec in REGISTRY.items() if not spec.dry_run
)

_NON_WORD = re.compile(r"[\W_]+")
_ALIASES: Final[dict[str, str]] = {
    _NON_WORD.sub("", alias.lower()): spec.name
    for spec in REGISTRY.values()
    for alias in (spec.name, *spec.aliases)
}


def canonical_name(value: str, *, dry_run: bool = True) -> str | None:
    """The provider ``value`` names (any alias, any case), or None."""
    name = _ALIASES.get(_NON_WORD.sub("", value.strip().lower()))
    if name is None or (not dry_run and REGISTRY[name].dry_run):
        return None
    return name


def provider_spec(value: Any, *, dry_run: bool = True) -> ProviderSpec:
    """The registry entry ``value`` names, or ``invalid_provider`` listing the choices."""
    name = canonical_name(value, dry_run=dry_run) if isinstance(value, str) else None
    if name is None:
        allowed = [n for n, s in REGISTRY.items() if dry_run or not s.dry_run]
        raise OracleError(
            "invalid_provider",
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
