"""``fetch(url)``: the one browser_fetch operation the CLI and the MCP tool call.

It refuses a bad URL before any browser starts, renders the page (:mod:`oraculum.fetch.render`)
within a total time budget and a cancel event, and turns what it saw into either a
:class:`FetchResult` (title, final URL, status, bounded Markdown, the resources the proxy
refused) or an
:class:`OracleError` that says why the page cannot be read — including sign-in, CAPTCHA and
anti-bot pages, which are reported, never worked around.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.surface import Surface
from oraculum.fetch.addresses import PUBLIC_ONLY, AddressPolicy, parse_host_literal
from oraculum.fetch.page import Snapshot, bounded, judge, page_markdown
from oraculum.fetch.proxy import Denial, Resolver, system_resolver
from oraculum.fetch.render import Rendered, render
from oraculum.fetch.urls import has_credentials, url_port

__all__ = ["MAX_URL_CHARS", "TOTAL_TIMEOUT_S", "FetchResult", "check_url", "fetch"]

TOTAL_TIMEOUT_S = 40.0  # launch, navigation (20 s), settle (2 s), reading, closing
MAX_URL_CHARS = 8_192
MAX_REPORTED_DENIALS = 50
_T = TypeVar("_T")


@dataclass(frozen=True)
class FetchResult:
    """A page read: what the site answered and the page as bounded Markdown."""

    url: str
    final_url: str
    status: int | None
    title: str
    markdown: str
    truncated: bool
    blocked: list[dict[str, Any]]  # the non-public destinations refused, each once

    def to_json(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "finalUrl": self.final_url,
            "status": self.status,
            "title": self.title,
            "markdown": self.markdown,
            "truncated": self.truncated,
            "blocked": self.blocked,
        }

    def text(self, surface: Surface) -> str:
        """One Markdown document: title, final URL, status, then the page (either surface)."""
        head = [
            f"# {self.title or '(untitled)'}",
            "",
            f"URL: {self.final_url}",
            f"Status: {self.status}",
        ]
        if self.blocked:
            hosts = ", ".join(sorted({f"{d['host']}:{d['port']}" for d in self.blocked}))
            head.append(f"Blocked (non-public): {hosts}")
        if self.truncated:
            head.append("Truncated: yes (the page is longer than the fetch returns)")
        return "\n".join([*head, "", self.markdown]).rstrip() + "\n"


def check_url(url: str, policy: AddressPolicy = PUBLIC_ONLY) -> str:
    """``url`` when it is an http(s) URL without credentials whose host, if it is an address
    in any spelling, is allowed; a refusal otherwise (no browser is started for it)."""
    if len(url) > MAX_URL_CHARS or any(c.isspace() or ord(c) < 32 for c in url):
        raise _invalid(url, "the URL is too long or contains whitespace or control characters")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise _invalid(url, "only http:// and https:// URLs can be fetched")
    if has_credentials(parts):
        raise _invalid(url, "URLs with credentials are refused")
    try:
        _ = parts.port
        address = parse_host_literal(parts.hostname or "")
    except ValueError:
        raise _invalid(url, "the URL's host or port is malformed") from None
    if not parts.hostname:
        raise _invalid(url, "the URL has no host")
    if address is not None and (reason := policy.reason(address)) is not None:
        raise OracleError(
            ErrorCode.FETCH_ADDRESS_BLOCKED,
            f"{parts.hostname} is {reason}: browser_fetch reaches public addresses only.",
            rejected_value=url,
        )
    port = url_port(parts) or 0  # a malformed port was refused above
    if (reason := policy.port_reason(port)) is not None:
        denial = Denial(parts.hostname, port, (), reason)
        raise OracleError(
            ErrorCode.FETCH_ADDRESS_BLOCKED,
            f"{parts.hostname}: {reason}.",
            rejected_value=url,
            details={"finalUrl": url, "blocked": [denial.to_dict()]},
        )
    return url


def fetch(
    url: str,
    *,
    policy: AddressPolicy = PUBLIC_ONLY,
    resolver: Resolver = system_resolver,
    cancel: threading.Event | None = None,
    timeout_s: float = TOTAL_TIMEOUT_S,
) -> FetchResult:
    """Render ``url`` and read it; raises :class:`OracleError` (``fetch_*``) when the page
    cannot be read."""
    checked = check_url(url, policy)
    rendered = _run(render(checked, policy=policy, resolver=resolver), cancel, timeout_s)
    return outcome(rendered)


def outcome(rendered: Rendered) -> FetchResult:
    """The result of a render, or the error that says why it has none (pure)."""
    blocked = [d.to_dict() for d in _unique(rendered.denials)][:MAX_REPORTED_DENIALS]
    details: dict[str, Any] = {"finalUrl": rendered.final_url, "blocked": blocked}
    if rendered.main_denial is not None:
        raise OracleError(
            ErrorCode.FETCH_ADDRESS_BLOCKED,
            f"{rendered.final_url} was refused: {rendered.main_denial.reason}. browser_fetch "
            "reaches public addresses only.",
            rejected_value=rendered.requested_url,
            details=details,
        )
    if rendered.main_failure is not None:
        raise OracleError(
            ErrorCode.FETCH_FAILED,
            f"The page could not be loaded: {rendered.main_failure.reason}.",
            suggested_next_step="Check the address; retry later if the site is down.",
            details=details,
        )
    snapshot = rendered.snapshot
    if snapshot is None:
        code = ErrorCode.FETCH_TIMEOUT if rendered.timed_out else ErrorCode.FETCH_FAILED
        raise OracleError(code, f"The page could not be loaded: {rendered.error}", details=details)
    verdict = judge(snapshot, rendered.status, rendered.final_url)
    if not verdict.ok:
        raise _verdict_error(verdict.kind, verdict.reason, rendered, snapshot, details)
    markdown, truncated = bounded(page_markdown(snapshot))
    return FetchResult(
        rendered.requested_url,
        rendered.final_url,
        rendered.status,
        snapshot.title,
        markdown,
        truncated,
        blocked,
    )


def _verdict_error(
    kind: str, reason: str, rendered: Rendered, snapshot: Snapshot, details: dict[str, Any]
) -> OracleError:
    details = {**details, "status": rendered.status, "title": snapshot.title, "kind": kind}
    if kind == "http_error":
        return OracleError(
            ErrorCode.FETCH_HTTP_ERROR, f"The site answered {reason}.", details=details
        )
    if kind == "unreadable":
        return OracleError(
            ErrorCode.FETCH_UNREADABLE, f"The page is unreadable: {reason}.", details=details
        )
    what = {"login": "a sign-in", "captcha": "a CAPTCHA"}.get(kind, "an anti-bot check")
    return OracleError(
        ErrorCode.FETCH_PAGE_BLOCKED,
        f"The page asks for {what} ({reason}); browser_fetch does not bypass it.",
        suggested_next_step="Use another source, or ask the user to open the page.",
        details=details,
    )


def _run(work: Coroutine[Any, Any, _T], cancel: threading.Event | None, timeout_s: float) -> _T:
    return asyncio.run(_supervised(work, cancel, timeout_s))


async def _supervised(
    work: Coroutine[Any, Any, _T], cancel: threading.Event | None, timeout_s: float
) -> _T:
    """Run ``work``, cancelling it (which closes its browser and proxy) on ``cancel`` or when
    ``timeout_s`` has passed."""
    task = asyncio.ensure_future(work)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not task.done():
        await asyncio.wait({task}, timeout=0.1)
        stop = None
        if cancel is not None and cancel.is_set():
            stop = OracleError(ErrorCode.FETCH_CANCELLED, "The fetch was cancelled.")
        elif loop.time() >= deadline and not task.done():
            stop = OracleError(
                ErrorCode.FETCH_TIMEOUT, f"The fetch did not finish within {timeout_s:g} s."
            )
        if stop is not None and not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            raise stop
    return task.result()


def _unique(denials: list[Denial]) -> list[Denial]:
    seen: set[tuple[str, int]] = set()
    unique = []
    for denial in denials:
        if (denial.host, denial.port) not in seen:
            seen.add((denial.host, denial.port))
            unique.append(denial)
    return unique


def _invalid(url: str, message: str) -> OracleError:
    return OracleError(
        ErrorCode.FETCH_URL_INVALID,
        f"Cannot fetch {url[:200]!r}: {message}.",
        rejected_value=url[:200],
    )
