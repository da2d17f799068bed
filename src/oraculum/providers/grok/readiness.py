"""Wait until the Grok page is ready for a prompt, or fail fast with ChatGPT's codes
(auth_login_required, provider_challenge, provider_outage, provider_not_ready)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from oraculum.core.errors import OracleError
from oraculum.providers.grok.page import GrokPage
from oraculum.providers.grok.page_state import Classification, PageState, classify

POLL_S = 0.25
RELOAD_AFTER_S = 5.0
GIVE_UP_AFTER_S = 15.0

FAILURES = {
    PageState.LOGIN_REQUIRED: (
        "auth_login_required",
        "Run `oraculum auth grok` to sign the Grok seed profile in again, then resubmit.",
    ),
    PageState.CHALLENGE_BLOCKING: (
        "provider_challenge",
        "Open Grok in the auth browser (`oraculum auth grok --manual`), solve the check, retry.",
    ),
    PageState.TRANSIENT_OUTAGE: ("provider_outage", "Grok is having trouble; retry later."),
}

OnFailure = Callable[[Classification], Awaitable[None]]


async def wait_until_ready(
    grok: GrokPage,
    origins: frozenset[str],
    *,
    timeout_s: float,
    on_failure: OnFailure,
    log: Callable[[str], None],
) -> None:
    """Poll until ready. One reload for an outage, one for a challenge that lingers; a login
    page fails at once; what persists fails."""
    started = time.monotonic()
    first_seen: dict[PageState, float] = {}
    reloaded: set[PageState] = set()
    last: Classification | None = None
    while time.monotonic() - started < timeout_s:
        try:
            last = classify(await grok.observe(), origins)
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
            await grok.page.reload()
        elif last.state == PageState.CHALLENGE_BLOCKING:
            if since >= GIVE_UP_AFTER_S:
                await fail(last, on_failure)
            if since >= RELOAD_AFTER_S and last.state not in reloaded:
                log(f"{last.reason}; reloading once")
                reloaded.add(last.state)
                await grok.page.reload()
        elif last.state != PageState.UNKNOWN:
            await fail(last, on_failure)
        await asyncio.sleep(POLL_S)
    if last is not None and last.state != PageState.UNKNOWN:
        await fail(last, on_failure)  # what the page kept showing is the reason
    await on_failure(last or Classification(PageState.UNKNOWN, "no reading"))
    raise OracleError(
        "provider_not_ready",
        "Timed out waiting for the Grok chat UI to become ready"
        + (f" (last state: {last.state}: {last.reason})" if last else "."),
        retryable=True,
        suggested_next_step="Check the diagnostics in the job's logs directory.",
    )


async def fail(state: Classification, on_failure: OnFailure) -> None:
    await on_failure(state)
    code, step = FAILURES.get(state.state, ("provider_not_ready", "Retry later."))
    evidence = f" ({state.evidence})" if state.evidence else ""
    raise OracleError(
        code,
        f"{state.reason}{evidence} {step}",
        suggested_next_step=step,
        retryable=state.state == PageState.TRANSIENT_OUTAGE,
    )
