"""After send: wait for the answer of exactly this job's turn, the same way for every provider.

Every poll reads location, turns and the stop control in one evaluation (the provider's
``turns()``), so what is judged always comes from one page at one moment. A provider brings its
page and its words (`AnswerWords`: rate-limit and failure text, its Retry control); the loop,
the stale stop control, the terminal evidence, the reload reconciliation and the revival wait of
a recollection are shared.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from playwright.async_api import Locator

from oraculum.core.config import Config
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.providers import conversation_id_from_url
from oraculum.jobs.model import Job
from oraculum.providers.adoption import strip_url
from oraculum.providers.shared_vocabulary import REASONING_LABEL_PATTERNS
from oraculum.providers.terminal import Finish, FinishedBy
from oraculum.providers.turns import (
    TurnsReading,
    TurnsView,
    answer_index,
    reply_at,
    signature,
    text_at,
)

__all__ = [
    "Answer",
    "AnswerView",
    "AnswerWords",
    "CompletionContext",
    "Stability",
    "StaleStop",
    "reconcile_after_reload",
    "revival_context",
    "wait_for_answer",
]

RECONCILE_TIMEOUT_S = 45.0
RECONCILE_POLL_S = 0.25
# How long a revived job's reply may still be finishing before a recollection gives up.
REVIVE_WAIT_S = 600.0


@dataclass
class StaleStop:
    """The stop control lingering over an unchanged, non-empty answer (a known UI fault)."""

    limit_s: float
    text: str | None = None
    since: float | None = None

    def observe(self, stop_present: bool, text: str, now: float) -> bool:
        """True once the stop control has sat over the same text for ``limit_s``."""
        if not stop_present or not text:
            self.text, self.since = None, None
            return False
        if text != self.text:
            self.text, self.since = text, now
            return False
        return self.since is not None and now - self.since >= self.limit_s


@dataclass
class Stability:
    """The same completed reading on consecutive polls."""

    needed: int = 2
    last: str | None = None
    count: int = 0

    def observe(self, signature: str | None) -> bool:
        if signature is None:
            self.last, self.count = None, 0
            return False
        self.count = self.count + 1 if signature == self.last else 1
        self.last = signature
        return self.count >= self.needed


@dataclass(frozen=True)
class Answer:
    text: str
    index: int  # the position of this job's answer among the assistant turns


@dataclass
class CompletionContext:
    conversation_id: str
    chat_url: str
    index: int  # the pre-send position of this job's answer (used without archive evidence)
    poll_s: float
    timeout_s: float
    stale_stop_s: float
    log: Callable[[str], None]
    on_navigation: Callable[[str], Awaitable[None]]
    heartbeat: Callable[[], Awaitable[None]] | None = None
    archive_name: str | None = None  # the job's archive, as its user turn shows it
    retried: bool = field(default=False)
    # Without its action bar, how long an answer must hold still to count as finished
    # (`worker.completionQuietMs`), and the lines that only label reasoning.
    quiet_s: float = 90.0
    labels: Sequence[re.Pattern[str]] = REASONING_LABEL_PATTERNS

    def index_in(self, reading: TurnsReading) -> int | None:
        return answer_index(reading, self.archive_name, self.index)

    def finish(self) -> Finish:
        return Finish(self.quiet_s, self.labels)

    def finished(self, how: FinishedBy, text: str) -> None:
        evidence = (
            "its action bar"
            if how == FinishedBy.ACTION_BAR
            else f"no change for {self.quiet_s:.0f}s without stop control or indicator"
        )
        self.log(f"answer finished ({len(text)} characters): {evidence}")


async def reconcile_after_reload(
    view: TurnsView, ctx: CompletionContext, streamed: Answer
) -> Answer:
    """Reload and read the turn again: a hidden tab freezes its stream while the server has
    the whole answer, so the streamed text is only a lower bound. Keep the longer."""
    await view.page.goto(ctx.chat_url)
    stability = Stability()
    deadline = time.monotonic() + RECONCILE_TIMEOUT_S
    while time.monotonic() < deadline:
        reading = await view.turns(ctx.archive_name)
        index = ctx.index_in(reading)
        if (
            conversation_id_from_url(reading.url) == ctx.conversation_id
            and index == streamed.index
            and stability.observe(signature(reading, index, ctx.labels))
        ):
            reloaded = text_at(reading, index)
            if len(reloaded) > len(streamed.text):
                ctx.log(f"reload recovered {len(reloaded) - len(streamed.text)} more characters")
                return Answer(reloaded, index)
            return streamed
        await asyncio.sleep(RECONCILE_POLL_S)
    ctx.log("reload reconciliation found no stable turn; keeping the streamed text")
    return streamed


def revival_context(job: Job, config: Config, log: Callable[[str], None]) -> CompletionContext:
    """The wait for a failed job's reply in its reopened conversation (its worker may have
    died while it streamed; the provider may still be writing it), anchored to the user turn
    that shows the job's archive."""

    async def navigated(away: str) -> None:
        log(f"recollect: the tab showed another page ({away}); reopening")

    chat_url = job.chat_url or ""
    return CompletionContext(
        conversation_id=job.conversation_id or conversation_id_from_url(chat_url) or "",
        chat_url=chat_url,
        index=0,
        poll_s=config.worker.poll_ms / 1000,
        timeout_s=min(config.worker.completion_timeout_ms / 1000, REVIVE_WAIT_S),
        stale_stop_s=config.worker.stale_stop_ms / 1000,
        log=log,
        on_navigation=navigated,
        archive_name=Path(job.archive_path).name,
        quiet_s=config.worker.completion_quiet_ms / 1000,
    )


class AnswerView(TurnsView, Protocol):
    """A provider's tab wrapper as the answer wait uses it (a `providers.page.ScriptedPage`
    with ``turns()``, ``scoped_text()`` and its Retry control)."""

    async def scoped_text(self) -> str: ...

    def retry_button(self) -> Locator: ...

    async def present(self, control: Locator, wanted: str) -> bool: ...

    async def guarded_click(self, control: Locator, wanted: str) -> None: ...


@dataclass(frozen=True)
class AnswerWords:
    """What a provider's page says while it answers (read with its vocabulary's patterns)."""

    label: str  # the provider's name in messages
    rate_limited: Callable[[str], str | None]  # a rate-limit notice in the page's scoped text
    generation_failure: Callable[[str], str | None]  # a failed turn's words
    retry_label: str  # the Retry control's name (pressed once for a failed turn)
    # Whether the page may show a failed turn's words outside the turn too (ChatGPT does).
    failure_outside_turn: bool = False

    def failure(self, reading: TurnsReading, text: str, scoped: str) -> str | None:
        """Why the bound turn failed to generate (None while it streams, or it did not)."""
        if reading.stop_present:
            return None
        outside = self.generation_failure(scoped) if self.failure_outside_turn else None
        return outside or self.generation_failure(text)


async def _retried_failed_turn(
    view: AnswerView, ctx: CompletionContext, words: AnswerWords, failure: str
) -> None:
    """A turn that failed to generate gets Retry pressed once; a second failure, or one
    without a Retry button, fails the job."""
    retry = view.retry_button()
    if ctx.retried or not await view.present(retry, words.retry_label):
        raise OracleError(
            ErrorCode.GENERATION_FAILED, f"{words.label} response failed: {failure}", retryable=True
        )
    ctx.log(f"generation failed ({failure}); pressing Retry once")
    ctx.retried = True
    await view.guarded_click(retry.first, words.retry_label)


async def wait_for_answer(view: AnswerView, ctx: CompletionContext, words: AnswerWords) -> Answer:
    """The finished text of the bound turn, and where it is: its action bar under a stable
    answer, or an answer quiet for ``ctx.quiet_s`` (`providers.terminal`)."""
    deadline = time.monotonic() + ctx.timeout_s
    finish, stale = ctx.finish(), StaleStop(ctx.stale_stop_s)
    while time.monotonic() < deadline:
        reading = await view.turns(ctx.archive_name)
        if conversation_id_from_url(reading.url) != ctx.conversation_id:
            # Another conversation contributes nothing: go back and count afresh.
            await ctx.on_navigation(strip_url(reading.url))
            await view.page.goto(ctx.chat_url)
            finish, stale = ctx.finish(), StaleStop(ctx.stale_stop_s)
            await asyncio.sleep(ctx.poll_s)
            continue
        scoped = await view.scoped_text()
        limited = words.rate_limited(scoped)
        if limited:
            raise OracleError(
                ErrorCode.PROVIDER_RATE_LIMITED,
                f"{words.label} is showing a rate-limit notice while answering: {limited}",
                retryable=True,
            )
        index = ctx.index_in(reading)
        text = text_at(reading, index)
        failure = words.failure(reading, text, scoped)
        if failure:
            await _retried_failed_turn(view, ctx, words, failure)
            finish = ctx.finish()
            await asyncio.sleep(ctx.poll_s)
            continue
        if stale.observe(reading.stop_present, text, time.monotonic()):
            ctx.log(
                f"Stop control still present after {ctx.stale_stop_s:.0f}s with the turn "
                "unchanged; reloading the conversation"
            )
            await view.page.goto(ctx.chat_url)
            finish, stale = ctx.finish(), StaleStop(ctx.stale_stop_s)
            continue
        how = finish.observe(reply_at(reading, index), time.monotonic())
        if how is not None and index is not None:
            ctx.finished(how, text)
            return await reconcile_after_reload(view, ctx, Answer(text, index))
        if ctx.heartbeat:
            await ctx.heartbeat()
        await asyncio.sleep(ctx.poll_s)
    raise OracleError(
        ErrorCode.RESPONSE_TIMEOUT,
        f"Timed out waiting for {words.label} response completion",
        retryable=True,
        suggested_next_step="The answer may still arrive: try `oraculum read --recollect` later.",
    )
