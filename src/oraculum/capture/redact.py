"""Which URLs may be kept, and scrubbing the ones that carry transport secrets.

A signed download URL (S3, GCS, Azure SAS, ChatGPT's estuary links) is a bearer credential: it
must never reach `response.md`, the raw evidence files or the capture record. A URL is *safe*
when it is http(s) and none of its query keys is one of the signing keys below. The same rule
runs in the page (capture.js) so sanitized HTML never carries an unsafe href; the tests check
that both agree on one table of cases.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urljoin, urlsplit

REDACTED = "[transport-url-redacted]"

# Query keys (case-insensitive) that sign or authorise a transport URL. `x-amz-*` and
# `x-goog-*` are prefixes.
SECRET_QUERY_KEYS = frozenset(
    {
        "sig",
        "signature",
        "token",
        "access_token",
        "auth",
        "key-pair-id",
        "policy",
        "expires",
        "se",
        "sp",
        "sv",
    }
)
SECRET_QUERY_PREFIXES = ("x-amz-", "x-goog-")

# A literal URL in free text: up to whitespace, angle brackets, a closing bracket/paren, a double
# quote (an HTML attribute's end) or a backtick (a Markdown code span's end).
LITERAL_URL_RE = re.compile(r"https?://[^\s<>)\]\"`]+", re.IGNORECASE)
# Trailing punctuation that ends a sentence rather than the URL.
_TRAILING_PUNCT = ".,;:!?'\""


def is_secret_key(key: str) -> bool:
    lowered = key.strip().lower()
    return lowered in SECRET_QUERY_KEYS or lowered.startswith(SECRET_QUERY_PREFIXES)


def _query_keys(query: str) -> list[str]:
    # `&amp;` appears when a URL is copied out of HTML source; treat it as a separator too.
    normalised = query.replace("&amp;", "&")
    return [key for key, _ in parse_qsl(normalised, keep_blank_values=True)] + [
        part for part in normalised.split("&") if part and "=" not in part
    ]


def carries_secret(url: str) -> bool:
    """Whether ``url``'s query string names any signing key."""
    try:
        query = urlsplit(url).query
    except ValueError:
        return False
    return any(is_secret_key(key) for key in _query_keys(query))


def safe_url(href: str | None, base: str | None = None) -> str | None:
    """The absolute form of ``href`` when it is safe to keep, else None."""
    if not href or not href.strip():
        return None
    try:
        absolute = urljoin(base or "", href.strip())
        parts = urlsplit(absolute)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    if carries_secret(absolute):
        return None
    return absolute


def _trim(url: str) -> str:
    return url.rstrip(_TRAILING_PUNCT)


def literal_urls(text: str) -> list[str]:
    """Every literal http(s) URL in ``text``, in order, without duplicates."""
    seen: dict[str, None] = {}
    for match in LITERAL_URL_RE.finditer(text):
        seen.setdefault(_trim(match.group(0)), None)
    return list(seen)


def redact_transport_secrets(text: str) -> str:
    """``text`` with every URL that carries a signing key replaced by REDACTED.

    Stable query strings and fragments survive (`?case=synthetic&v=1#evidence` is unchanged).
    """

    def replace(match: re.Match[str]) -> str:
        url = _trim(match.group(0))
        tail = match.group(0)[len(url) :]
        return (REDACTED + tail) if carries_secret(url) else match.group(0)

    return LITERAL_URL_RE.sub(replace, text)
