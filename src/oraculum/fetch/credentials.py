"""Refusing ``user:password@`` in every URL a fetched page requests, redirect hops included.

The proxy never sees a URL's credentials (Chromium keeps them for HTTP auth), and Playwright's
routes do not see redirect hops, so the page's requests are paused through the DevTools
protocol (``Fetch`` domain) twice: before they are sent, and when their response (a redirect's
``Location`` included) arrives. A refused one is failed there and recorded as a denial.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any
from urllib.parse import urljoin, urlsplit

from playwright.async_api import BrowserContext, CDPSession, Page
from playwright.async_api import Error as PlaywrightError

from oraculum.fetch.proxy import Denial
from oraculum.fetch.urls import has_credentials, url_port

__all__ = ["refuse_credentials"]

_PAUSE_EVERY_REQUEST = {
    "patterns": [
        {"urlPattern": "*", "requestStage": "Request"},
        {"urlPattern": "*", "requestStage": "Response"},
    ]
}


async def refuse_credentials(context: BrowserContext, page: Page, denials: list[Denial]) -> None:
    """Refuse every request of ``page`` to a URL with credentials, and every redirect to one
    (each recorded in ``denials``)."""
    cdp = await context.new_cdp_session(page)

    async def judge(event: dict[str, Any]) -> None:
        with contextlib.suppress(PlaywrightError):  # the page closed meanwhile
            await _judge_paused(cdp, event, denials)

    pending: set[asyncio.Task[None]] = set()  # held: the loop keeps only weak references

    def paused(event: dict[str, Any]) -> None:
        task = asyncio.ensure_future(judge(event))
        pending.add(task)
        task.add_done_callback(pending.discard)

    cdp.on("Fetch.requestPaused", paused)
    await cdp.send("Fetch.enable", _PAUSE_EVERY_REQUEST)


async def _judge_paused(cdp: CDPSession, event: dict[str, Any], denials: list[Denial]) -> None:
    request_id, url = event["requestId"], event["request"]["url"]
    status = event.get("responseStatusCode")
    going_to = url if status is None else _redirect_target(url, status, event)
    if going_to is not None and has_credentials(urlsplit(going_to)):
        parts = urlsplit(url)
        reason = "credentials in the URL are refused" + ("" if going_to == url else " (redirect)")
        denials.append(Denial(parts.hostname or "", url_port(parts) or 0, (), reason))
        await cdp.send(
            "Fetch.failRequest", {"requestId": request_id, "errorReason": "BlockedByClient"}
        )
        return
    method = "Fetch.continueRequest" if status is None else "Fetch.continueResponse"
    await cdp.send(method, {"requestId": request_id})


def _redirect_target(url: str, status: int, event: dict[str, Any]) -> str | None:
    if not 300 <= status < 400:
        return None
    headers = event.get("responseHeaders") or []
    location = next((h["value"] for h in headers if h["name"].lower() == "location"), None)
    return None if location is None else urljoin(url, location)
