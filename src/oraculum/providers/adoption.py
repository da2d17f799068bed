"""After send: which conversation URL is this job's (every provider's rule).

A conversation path whose user turn shows the job's archive, read in the same evaluation as
the location, seen twice in a row; a URL that is not a conversation is never adopted.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from oraculum.core.providers import conversation_id_from_url
from oraculum.providers.base import AdoptedUrl
from oraculum.providers.turns import TurnsReading, TurnsView

__all__ = ["adopt_conversation_url", "strip_url", "url_candidate"]

URL_POLL_S = 0.25
BACK_AFTER_S = 2.5


def strip_url(url: str) -> str:
    """``url`` without its query and fragment."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


def url_candidate(reading: TurnsReading, archive_name: str) -> str | None:
    """The conversation URL this reading proves is ours: a conversation path whose user turns
    show this job's archive."""
    if conversation_id_from_url(reading.url) is None:
        return None
    if not any(archive_name in text for text in reading.user_texts):
        return None
    return strip_url(reading.url)


async def adopt_conversation_url(
    view: TurnsView,
    archive_name: str,
    *,
    timeout_s: float,
    log: Callable[[str], None],
    on_navigation: Callable[[str], Awaitable[None]],
    first: TurnsReading | None = None,
) -> AdoptedUrl | None:
    """The job's conversation URL: a conversation path whose user turn shows the job's
    archive, read in the same evaluation as the location, seen twice in a row.

    If the tab wanders to another conversation after the evidence was seen once, it is sent
    back there. After ``timeout_s`` without any evidence a conversation URL is adopted
    unverified (and logged); a URL that is not a conversation is never adopted."""
    previous: str | None = None
    evidenced: str | None = None
    # Conversations the tab has shown since the send, in order, without the archive in view
    # yet. The first is almost surely ours (the send's own URL change), so when the tab is
    # somewhere else later, we go back there and look again after a fresh load.
    unproven: list[str] = []
    revisited: set[str] = set()
    went_back = False
    readings = [first] if first else []
    started = time.monotonic()
    deadline = started + timeout_s
    reading = first or await view.turns()
    while time.monotonic() < deadline:
        reading = readings.pop() if readings else await view.turns()
        candidate = url_candidate(reading, archive_name)
        here = strip_url(reading.url) if conversation_id_from_url(reading.url) else None
        if candidate and candidate == previous:
            return AdoptedUrl(candidate, conversation_id_from_url(candidate) or "", True)
        if candidate:
            evidenced = candidate
        elif here and here not in unproven:
            unproven.append(here)
        previous = candidate
        target = evidenced or next((u for u in unproven if u not in revisited), None)
        if here and target and here != target and (evidenced or here != unproven[0]):
            await on_navigation(here)
            revisited.add(target)
            await view.page.goto(target)
            continue
        if not evidenced and not went_back and here and time.monotonic() - started > BACK_AFTER_S:
            # We never saw our own conversation's URL: the tab may have been moved on at once.
            # One step back in its history is where the send left it.
            went_back = True
            await on_navigation(here)
            with contextlib.suppress(Exception):
                await view.page.go_back()
            continue
        await asyncio.sleep(URL_POLL_S)
    return _adopted_at_deadline(reading, evidenced, timeout_s, log)


def _adopted_at_deadline(
    reading: TurnsReading, evidenced: str | None, timeout_s: float, log: Callable[[str], None]
) -> AdoptedUrl | None:
    """Time is up: the URL seen once with the archive, else the conversation the tab shows
    (unverified), else nothing."""
    if evidenced:
        return AdoptedUrl(evidenced, conversation_id_from_url(evidenced) or "", True)
    conversation = conversation_id_from_url(reading.url)
    if conversation is None:
        log(f"no conversation URL after {timeout_s:.0f}s (page at {strip_url(reading.url)})")
        return None
    log(f"adopting {strip_url(reading.url)} unverified: the job's archive was not seen in it")
    return AdoptedUrl(strip_url(reading.url), conversation, False)
