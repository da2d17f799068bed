"""After send: wait for the Grok reply that follows this job's user message.

The decisions are every provider's (`StaleStop`, `answer_index`, the terminal evidence of
`providers.terminal`, URL adoption and the reload reconciliation all work on a `TurnsReading`
and a page offering ``turns()``); what is Grok's own is its failure text, its messages and its
vocabulary (action buttons, thinking shimmer, reasoning labels).
"""

from __future__ import annotations

import asyncio
import time

from oraculum.core.errors import OracleError
from oraculum.core.providers import conversation_id_from_url
from oraculum.providers.adoption import strip_url
from oraculum.providers.completion import (
    Answer,
    CompletionContext,
    StaleStop,
    reconcile_after_reload,
)
from oraculum.providers.grok import vocabulary as vocab
from oraculum.providers.grok.page import GrokPage
from oraculum.providers.grok.page_state import generation_failure, rate_limited
from oraculum.providers.turns import reply_at, text_at

__all__ = ["wait_for_answer"]


async def wait_for_answer(grok: GrokPage, ctx: CompletionContext) -> Answer:
    """The finished text of the reply bound to this job's user message, and where it is: its
    action buttons under a stable answer, or an answer quiet for ``ctx.quiet_s``."""
    deadline = time.monotonic() + ctx.timeout_s
    finish = ctx.finish()
    stale = StaleStop(ctx.stale_stop_s)
    while time.monotonic() < deadline:
        reading = await grok.turns(ctx.archive_name)
        if conversation_id_from_url(reading.url) != ctx.conversation_id:
            # Another conversation contributes nothing: go back and count afresh.
            await ctx.on_navigation(strip_url(reading.url))
            await grok.page.goto(ctx.chat_url)
            finish, stale = ctx.finish(), StaleStop(ctx.stale_stop_s)
            await asyncio.sleep(ctx.poll_s)
            continue
        limited = rate_limited(await grok.scoped_text())
        if limited:
            raise OracleError(
                "provider_rate_limited",
                f"Grok is showing a rate-limit message while answering: {limited}",
                retryable=True,
            )
        index = ctx.index_in(reading)
        text = text_at(reading, index)
        failure = None if reading.stop_present else generation_failure(text)
        if failure:
            retry = grok.retry_button()
            if not ctx.retried and await grok.present(retry, vocab.RETRY_LABEL):
                ctx.log(f"generation failed ({failure}); pressing Retry once")
                ctx.retried = True
                await grok.guarded_click(retry.first, vocab.RETRY_LABEL)
                finish = ctx.finish()
                await asyncio.sleep(ctx.poll_s)
                continue
            raise OracleError(
                "generation_failed", f"Grok response failed: {failure}", retryable=True
            )
        if stale.observe(reading.stop_present, text, time.monotonic()):
            ctx.log(
                f"Stop control still present after {ctx.stale_stop_s:.0f}s with the reply "
                "unchanged; reloading the conversation"
            )
            await grok.page.goto(ctx.chat_url)
            finish, stale = ctx.finish(), StaleStop(ctx.stale_stop_s)
            continue
        how = finish.observe(reply_at(reading, index), time.monotonic())
        if how is not None and index is not None:
            ctx.finished(how, text)
            return await reconcile_after_reload(grok, ctx, Answer(text, index))
        await asyncio.sleep(ctx.poll_s)
    raise OracleError(
        "response_timeout",
        "Timed out waiting for Grok response completion",
        retryable=True,
        suggested_next_step="The answer may still arrive: try `oraculum read --recollect` later.",
    )
