"""A provider's own capture function (its registry entry's ``capture``), for a provider whose
page capture.js cannot read (Grok's): `collect.collect` and `collect.recollect` read the page
through it, in the same order and to the same files as capture.js's, with the reply's links
judged here (capture.js judges its own).
"""

from __future__ import annotations

from dataclasses import replace

from playwright.async_api import Page

from oraculum.capture.page import CaptureFn, CaptureRequest, TurnCapture
from oraculum.capture.redact import safe_url
from oraculum.core.providers import load_named, provider_spec

__all__ = ["provider_capture"]


def _judged_sources(capture: TurnCapture) -> TurnCapture:
    """The page's links as sources: a safe URL, or flagged unresolved (never returned)."""
    sources = []
    for raw in capture.sources:
        source = {k: v for k, v in raw.items() if k != "href"}
        url = safe_url(raw.get("href"), capture.url)
        if url:
            source["url"] = url
        else:
            source["unresolved"] = True
        sources.append(source)
    return replace(capture, sources=sources)


def provider_capture(provider: str, page: Page) -> CaptureFn | None:
    """``provider``'s own capture of ``page``, its links judged; None: capture.js reads it."""
    named = provider_spec(provider).capture
    if named is None:
        return None
    read_page = load_named(named)

    async def capture(request: CaptureRequest) -> TurnCapture:
        read: TurnCapture = await read_page(page, request)
        return _judged_sources(read) if read.ok else read

    return capture
