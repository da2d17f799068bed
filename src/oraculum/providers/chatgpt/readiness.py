"""Wait until the ChatGPT page is ready for a prompt, or fail with the precise reason."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from oraculum.core.errors import OracleError
from oraculum.providers.chatgpt.page import ChatGPTPage
from oraculum.providers.chatgpt.page_state import Classification, PageState, classify

POLL_S = 0.25
RELOAD_AFTER_S = 5.0
GIVE_UP_AFTER_S = 15.0

FAILURES = {
    PageState.LOGIN_REQUIRED: (
        "auth_login_required",
        "Run `oraculum auth` to sign the seed profile in again, then resubmit.",
    ),
    PageState.CHALLENGE_BLOCKING: (
        "provider_challenge",
        "Open ChatGPT in the auth browser (`oraculum auth --manual`), solve the check, retry.",
    ),
    PageState.TRANSIENT_OUTAGE: (
        "provider_outage",
        "ChatGPT is having trouble or rate-limiting; retry later.",
    ),
    PageState.AUTH_TRANSITIONING: (
        "auth_login_required",
        "The session is half signed in; run `oraculum auth`, then resubmit.",
    ),
}


async def wait_until_ready(
    chat: ChatGPTPage,
    origins: frozenset[str],
    *,
    timeout_s: float,
    on_failure: Callable[[Classification], Awaitable[None]],
    log: Callable[[str], None],
) -> None:
    """Poll the page until it is ready. One reload is allowed for an outage, and one for a
    challenge or half-finished sign-in that lingers; what persists fails."""
    started = time.monotonic()
    first_seen: dict[PageState, float] = {}
    reloaded: set[PageState] = set()
    last: Classification | None = None
    while time.monotonic() - started < timeout_s:
        try:
            last = classify(await chat.observe(), origins)
        except Exception as exc:  # a navigation mid-read: look again
            log(f"page not readable yet: {exc}")
            await asyncio.sleep(POLL_S)
            continue
        if last.state == PageState.READY:
            return
        now = time.monotonic()
        since = now - first_seen.setdefault(last.state, now)
        if last.state == PageState.TRANSIENT_OUTAGE and last.state not in reloaded:
            log(f"{last.reason} ({last.evidence}); reloading once")
            reloaded.add(last.state)
            await chat.page.reload()
        elif last.state in (PageState.CHALLENGE_BLOCKING, PageState.AUTH_TRANSITIONING):
            if since >= GIVE_UP_AFTER_S:
                await _fail(last, on_failure)
            if since >= RELOAD_AFTER_S and last.state not in reloaded:
                log(f"{last.reason}; reloading once")
                reloaded.add(last.state)
                await chat.page.reload()
        elif last.state != PageState.UNKNOWN:
            await _fail(last, on_failure)
        await asyncio.sleep(POLL_S)
    if last is not None and last.state != PageState.UNKNOWN:
        await _fail(last, on_failure)  # what the page kept showing is the reason
    await on_failure(last or Classification(PageState.UNKNOWN, "no reading"))
    raise OracleError(
        "provider_not_ready",
        "Timed out waiting for the ChatGPT chat UI to become ready"
        + (f" (last state: {last.state}: {last.reason})" if last else "."),
        retryable=True,
        suggested_next_step="Check the diagnostics in the job's logs directory.",
    )


async def _fail(
    state: Classification, on_failure: Callable[[Classification], Awaitable[None]]
) -> None:
    await on_failure(state)
    code, step = FAILURES.get(state.state, ("provider_not_ready", "Retry later."))
    evidence = f" ({state.evidence})" if state.evidence else ""
    raise OracleError(
        code,
        f"{state.reason}{evidence} {step}",
        suggested_next_step=step,
        retryable=state.state == PageState.TRANSIENT_OUTAGE,
    )
