"""After send: wait for the answer of exactly this turn (ChatGPT's failure words and Retry;
URL adoption and the wait's shared parts are `providers.adoption` and `providers.completion`).

Every poll reads location, turns and the stop control in one evaluation (`turns.js`), so what
we judge always comes from one page at one moment.
"""

from __future__ import annotations

import asyncio
import time

from oraculum.core.errors import OracleError
from oraculum.providers.adoption import strip_url
from oraculum.providers.chatgpt import vocabulary as vocab
from oraculum.providers.chatgpt.page import ChatGPTPage
from oraculum.providers.chatgpt.page_state import (
    conversation_id_from_url,
    generation_failure,
    rate_limited,
)
from oraculum.providers.completion import (
    Answer,
    CompletionContext,
    StaleStop,
    reconcile_after_reload,
)
from oraculum.providers.turns import TurnsReading, reply_at, text_at

__all__ = ["wait_for_answer"]


def _raise_if_rate_limited(scoped: str) -> None:
    limited = rate_limited(scoped)
    if limited:
        raise OracleError(
            "provider_rate_limited",
            f"ChatGPT is showing a rate-limit page while waiting for the answer: {limited}",
            retryable=True,
        )


async def _retried_failed_turn(
    chat: ChatGPTPage, ctx: CompletionContext, reading: TurnsReading, text: str, scoped: str
) -> bool:
    """A turn that failed to generate gets Retry pressed once (True: count afresh); a second
    failure, or one without a Retry button, fails the job."""
    failure = generation_failure(scoped) or (
        generation_failure(text) if not reading.stop_present else None
    )
    if not failure or reading.stop_present:
        return False
    retry = chat.retry_button()
    if not ctx.retried and await chat.present(retry, vocab.RETRY_LABEL):
        ctx.log(f"generation failed ({failure}); pressing Retry once")
        ctx.retried = True
        await chat.guarded_click(retry.first, vocab.RETRY_LABEL)
        return True
    raise OracleError("generation_failed", f"ChatGPT response failed: {failure}", retryable=True)


async def wait_for_answer(chat: ChatGPTPage, ctx: CompletionContext) -> Answer:
    """The finished text of the bound turn, and where it is."""
    deadline = time.monotonic() + ctx.timeout_s
    finish = ctx.finish()
    stale = StaleStop(ctx.stale_stop_s)
    while time.monotonic() < deadline:
        reading = await chat.turns(ctx.archive_name)
        seen_id = conversation_id_from_url(reading.url)
        if seen_id != ctx.conversation_id:
            # Another conversation contributes nothing: go back and count afresh.
            await ctx.on_navigation(strip_url(reading.url))
            await chat.page.goto(ctx.chat_url)
            finish = ctx.finish()
            stale = StaleStop(ctx.stale_stop_s)
            await asyncio.sleep(ctx.poll_s)
            continue
        scoped = await chat.scoped_text()
        _raise_if_rate_limited(scoped)
        index = ctx.index_in(reading)
        text = text_at(reading, index)
        if await _retried_failed_turn(chat, ctx, reading, text, scoped):
            finish = ctx.finish()
            await asyncio.sleep(ctx.poll_s)
            continue
        if stale.observe(reading.stop_present, text, time.monotonic()):
            ctx.log(
                f"Stop control still present after {ctx.stale_stop_s:.0f}s with the turn "
                "unchanged; reloading the conversation"
            )
            await chat.page.goto(ctx.chat_url)
            finish = ctx.finish()
            stale = StaleStop(ctx.stale_stop_s)
            continue
        how = finish.observe(reply_at(reading, index), time.monotonic())
        if how is not None and index is not None:
            ctx.finished(how, text)
            return await reconcile_after_reload(chat, ctx, Answer(text, index))
        if ctx.heartbeat:
            await ctx.heartbeat()
        await asyncio.sleep(ctx.poll_s)
    raise OracleError(
        "response_timeout",
        "Timed out waiting for ChatGPT response completion",
        retryable=True,
        suggested_next_step="The answer may still arrive: try `oraculum read --recollect` later.",
    )
