"""Credentials found by content: the small files whose names gave no verdict (pure).

A private key or a token saved under an innocent name (`keys/deploy_key`, `app/config.json`)
passes every name rule. So each small file (at most :data:`CONTENT_CHECK_MAX_BYTES`) is checked
on the bytes the archive writer has just read into its buffer (``--list`` reads them once for
the same check). A documented, high-confidence pattern set, in two stages:

1. one Aho-Corasick pass (the Rust ``aho-corasick`` crate, through ``ahocorasick-rs``) looks
   for every marker at once, at memory speed: almost every file stops here;
2. a marker found is confirmed by its own regular expression, so a source file that merely
   mentions ``"PRIVATE KEY"`` or ``ghp_`` stays in; only the full shape of a key or token
   excludes a file.

The size cap keeps the check within the archive's speed budget (docs/archives.md): private
keys, service-account keys and token files are all far smaller.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ahocorasick_rs import BytesAhoCorasick

CONTENT_CHECK_MAX_BYTES = 4096
CONTENT_REASON = "credential content: "  # every reason given here starts so


class ContentRule(NamedTuple):
    """A marker the first pass looks for, what confirms it, and the reason it reports."""

    marker: bytes
    confirm: re.Pattern[bytes]
    what: str


def _rx(pattern: bytes, flags: int = 0) -> re.Pattern[bytes]:
    return re.compile(pattern, flags)


# No letter, digit or underscore may touch a token on either side: a token inside a longer
# identifier is not one.
_NB = rb"(?<![A-Za-z0-9_])"
_NA = rb"(?![A-Za-z0-9_])"

_PEM_KEY = _rx(
    # A PEM (or OpenSSH) private-key block: the header at the start of a line, optional
    # RFC 1421 headers (`Proc-Type: …`), then base64: a header quoted in source code has no body.
    rb"^-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----\r?\n"
    rb"(?:[A-Za-z-]+:[^\n]*\n)*\r?\n?[A-Za-z0-9+/=]{40,}",
    re.MULTILINE,
)
_SERVICE_ACCOUNT = _rx(rb'"type"\s*:\s*"service_account"')
_PRIVATE_KEY_FIELD = _rx(rb'"private_key"\s*:\s*"')
_AWS_SECRET = _rx(
    rb"(?i:secret_?access_?key|aws_?secret)[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])"
)

CONTENT_RULES: tuple[ContentRule, ...] = (
    ContentRule(b"PRIVATE KEY", _PEM_KEY, "private key"),
    ContentRule(b"service_account", _SERVICE_ACCOUNT, "service-account key"),
    ContentRule(b"ghp_", _rx(_NB + rb"ghp_[A-Za-z0-9]{36}" + _NA), "GitHub token"),
    ContentRule(b"gho_", _rx(_NB + rb"gho_[A-Za-z0-9]{36}" + _NA), "GitHub token"),
    ContentRule(b"ghu_", _rx(_NB + rb"ghu_[A-Za-z0-9]{36}" + _NA), "GitHub token"),
    ContentRule(b"ghs_", _rx(_NB + rb"ghs_[A-Za-z0-9]{36}" + _NA), "GitHub token"),
    ContentRule(b"ghr_", _rx(_NB + rb"ghr_[A-Za-z0-9]{36}" + _NA), "GitHub token"),
    ContentRule(b"github_pat_", _rx(_NB + rb"github_pat_[A-Za-z0-9_]{80,}"), "GitHub token"),
    ContentRule(b"glpat-", _rx(_NB + rb"glpat-[A-Za-z0-9_-]{20,}"), "GitLab token"),
    ContentRule(b"xox", _rx(_NB + rb"xox[abprs]-[0-9]{6,}-[A-Za-z0-9-]{10,}"), "Slack token"),
    ContentRule(b"sk-ant-", _rx(_NB + rb"sk-ant-[A-Za-z0-9_-]{32,}"), "Anthropic API key"),
    ContentRule(b"sk-proj-", _rx(_NB + rb"sk-proj-[A-Za-z0-9_-]{40,}"), "OpenAI API key"),
    ContentRule(b"sk_live_", _rx(_NB + rb"sk_live_[A-Za-z0-9]{24,}" + _NA), "Stripe secret key"),
    ContentRule(b"npm_", _rx(_NB + rb"npm_[A-Za-z0-9]{36}" + _NA), "npm token"),
    ContentRule(b"pypi-AgE", _rx(_NB + rb"pypi-AgE[A-Za-z0-9_-]{50,}"), "PyPI token"),
    # An access key id alone is not a secret; with its secret beside it, it is.
    ContentRule(b"AKIA", _rx(_NB + rb"AKIA[0-9A-Z]{16}" + _NA), "AWS access key"),
    ContentRule(
        b"PrivateKey",
        _rx(rb"^[ \t]*PrivateKey[ \t]*=[ \t]*[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=", re.MULTILINE),
        "WireGuard private key",
    ),
)

_MARKERS = BytesAhoCorasick([rule.marker for rule in CONTENT_RULES])


def _confirmed(rule: ContentRule, data: bytes | memoryview) -> bool:
    if rule.confirm.search(data) is None:
        return False
    if rule.marker == b"service_account":
        return _PRIVATE_KEY_FIELD.search(data) is not None
    if rule.marker == b"AKIA":
        return _AWS_SECRET.search(data) is not None
    return True


def content_exclusion_reason(data: bytes | memoryview) -> str | None:
    """Why a small file whose whole content is ``data`` is excluded, or None (pure)."""
    found = _MARKERS.find_matches_as_indexes(data)
    if not found:
        return None
    for index in sorted({i for i, _start, _end in found}):
        rule = CONTENT_RULES[index]
        if _confirmed(rule, data):
            return CONTENT_REASON + rule.what
    return None
