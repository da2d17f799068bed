"""Which cookies of the user's browser may enter a seed profile (pure).

Only what a provider needs to recognise a signed-in browser is copied: session tokens, account
selectors and the Cloudflare clearance. Analytics, consent, CSRF and load-balancer cookies are
noise (some of them — a stale `__Host-next-auth.csrf-token`, say — break the sign-in), and a
cookie of any other site never leaves the user's browser.

Every cookie is first normalised (domain, path, flags, expiry in Unix seconds), then classified
in a fixed order: noise, foreign domain, not auth-related, else kept. The first cookie for a
`domain:name` wins. ChatGPT also needs an `_account` cookie; if the browser had none, one is
synthesised.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal
from urllib.parse import urlsplit

from oraculum.core import providers
from oraculum.core.config import LOOPBACK_HOSTS
from oraculum.core.presets import normalize_provider

# Chromium/WebKit store expiry as microseconds since 1601-01-01; JavaScript as milliseconds.
_CHROME_EPOCH_OFFSET_S = 11_644_473_600
_CHROME_MICROS_THRESHOLD = 1e13
_MILLIS_THRESHOLD = 1e10
SAME_SITE_VALUES = ("Lax", "Strict", "None")

# The session cookie of oraculum's local look-alike (`oraculum.simulator`). A loopback chat URL
# is a look-alike by definition (config accepts no other http origin), and it cannot use the
# `__Secure-` prefix over plain http, so it signs in with its own name.
LOOKALIKE_SESSION_COOKIE = "oraculum-sim-session"

Verdict = Literal["keep", "noise", "foreign-domain", "non-auth"]


def _names(*patterns: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(rf"^(?:{p})$") for p in patterns)


@dataclass(frozen=True)
class CookiePolicy:
    provider: str
    label: str  # how the user calls the site, for messages
    domains: frozenset[str]
    session: tuple[re.Pattern[str], ...]  # at least one must be present
    allowed: tuple[re.Pattern[str], ...]
    noise: tuple[re.Pattern[str], ...]
    synthesize_account: bool = False

    def read_domains(self, chat_host: str) -> list[str]:
        """The domains to ask the cookie store for (it matches them as substrings)."""
        return sorted({*self.domains, chat_host})


def policy_of(spec: providers.ProviderSpec) -> CookiePolicy:
    """A provider's cookie policy, from the cookie names and domains its registry entry gives."""
    session = _names(*spec.cookies.session)
    return CookiePolicy(
        provider=spec.name,
        label=spec.label,
        domains=spec.cookie_domains,
        session=session,
        allowed=(*session, *_names(*spec.cookies.allowed)),
        noise=_names(*spec.cookies.noise),
        synthesize_account=spec.cookies.synthesize_account,
    )


CHATGPT_POLICY: Final = policy_of(providers.CHATGPT)


def policy_for(provider: str, chat_url: str) -> CookiePolicy:
    """The provider's policy; for a loopback look-alike its session cookie counts too."""
    base = policy_of(providers.REGISTRY[normalize_provider(provider)])
    if (urlsplit(chat_url).hostname or "") not in LOOPBACK_HOSTS:
        return base
    lookalike = _names(re.escape(LOOKALIKE_SESSION_COOKIE))
    return replace(base, session=(*base.session, *lookalike), allowed=(*base.allowed, *lookalike))


@dataclass(frozen=True)
class Cookie:
    """A normalised cookie: domain without a leading dot, expiry in Unix seconds or None."""

    name: str
    value: str = field(repr=False)  # never printed: it is a credential
    domain: str
    path: str = "/"
    expires: float | None = None
    secure: bool = True
    http_only: bool = False
    same_site: str | None = None

    @property
    def label(self) -> str:
        return f"{self.name}@{self.domain}"

    def to_playwright(self) -> dict[str, Any]:
        """The form `BrowserContext.add_cookies` takes (a host-only cookie: `domain` + `path`)."""
        out: dict[str, Any] = {
            "name": self.name,
            "value": self.value,
            "domain": self.domain,
            "path": self.path,
            "secure": self.secure,
            "httpOnly": self.http_only,
        }
        if self.expires is not None:
            out["expires"] = self.expires
        if self.same_site is not None:
            out["sameSite"] = self.same_site
        return out


def unix_expiry(value: Any) -> float | None:
    """Seconds since 1970 from seconds, milliseconds or Chromium microseconds-since-1601;
    None (a session cookie) for anything missing or non-positive."""
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    if number > _CHROME_MICROS_THRESHOLD:
        number = number / 1e6 - _CHROME_EPOCH_OFFSET_S
    elif number > _MILLIS_THRESHOLD:
        number = number / 1000
    return number if number > 0 else None


def _flag(raw: Mapping[str, Any], keys: tuple[str, ...], default: bool) -> bool:
    for key in keys:
        if raw.get(key) is not None:
            return bool(raw[key])
    return default


def normalize(raw: Mapping[str, Any], default_host: str) -> Cookie | None:
    """A cookie from a store's row (any common key spelling); None without a name."""
    name = str(raw.get("name") or "")
    if not name:
        return None
    domain = str(raw.get("domain") or raw.get("host") or default_host).lstrip(".").lower()
    same_site = raw.get("sameSite", raw.get("same_site"))
    return Cookie(
        name=name,
        value=str(raw.get("value") or ""),
        domain=domain or default_host,
        path=str(raw.get("path") or "/"),
        expires=unix_expiry(raw.get("expires", raw.get("expirationDate"))),
        secure=_flag(raw, ("secure", "is_secure"), True),
        http_only=_flag(raw, ("httpOnly", "http_only", "is_httponly"), False),
        same_site=same_site if same_site in SAME_SITE_VALUES else None,
    )


def _matches(name: str, patterns: Iterable[re.Pattern[str]]) -> bool:
    return any(p.match(name) for p in patterns)


def classify_cookie(cookie: Cookie, policy: CookiePolicy, chat_host: str) -> Verdict:
    if _matches(cookie.name, policy.noise):
        return "noise"
    if cookie.domain not in policy.domains and cookie.domain != chat_host:
        return "foreign-domain"
    if not _matches(cookie.name, policy.allowed):
        return "non-auth"
    return "keep"


@dataclass(frozen=True)
class PolicyResult:
    kept: list[Cookie]
    dropped: list[tuple[str, Verdict | str]]  # (name@domain, reason)
    has_session: bool
    account_synthesized: bool

    def log_lines(self) -> list[str]:
        """What the run log records: names and domains, never values."""
        return [
            "kept: " + (", ".join(c.label for c in self.kept) or "(none)"),
            "dropped: " + (", ".join(f"{label} ({why})" for label, why in self.dropped) or "-"),
            f"session token: {'present' if self.has_session else 'missing'}; "
            f"_account: {'synthesized' if self.account_synthesized else 'from browser'}",
        ]


def account_cookie(kept: list[Cookie], chat_host: str) -> Cookie:
    """The `_account` ChatGPT expects: FedRAMP accounts say so in `_account_is_fedramp`."""
    fedramp = next((c.value for c in kept if c.name == "_account_is_fedramp"), "")
    return Cookie(
        name="_account",
        value="fedramp" if fedramp.strip().lower() in ("1", "true", "yes") else "personal",
        domain=chat_host,
        path="/",
        secure=True,
        http_only=False,
        same_site="Lax",
    )


def apply_policy(
    rows: Iterable[Mapping[str, Any]], policy: CookiePolicy, chat_url: str
) -> PolicyResult:
    chat_host = (urlsplit(chat_url).hostname or "").lower()
    kept: list[Cookie] = []
    dropped: list[tuple[str, Verdict | str]] = []
    seen: set[str] = set()
    for row in rows:
        cookie = normalize(row, chat_host)
        if cookie is None:
            continue
        key = f"{cookie.domain}:{cookie.name}"
        if key in seen:
            dropped.append((cookie.label, "duplicate"))
            continue
        seen.add(key)
        verdict = classify_cookie(cookie, policy, chat_host)
        if verdict == "keep":
            kept.append(cookie)
        else:
            dropped.append((cookie.label, verdict))
    has_session = any(_matches(c.name, policy.session) for c in kept)
    synthesized = False
    if policy.synthesize_account and not any(c.name == "_account" for c in kept):
        kept.append(account_cookie(kept, chat_host))
        synthesized = True
    return PolicyResult(kept, dropped, has_session, synthesized)


def is_session_cookie(name: str, policy: CookiePolicy) -> bool:
    return _matches(name, policy.session)
