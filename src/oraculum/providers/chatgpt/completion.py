"""After send: adopt the conversation URL, then wait for the answer of exactly this turn.

Every poll reads location, turns and the stop control in one evaluation (`turns.js`), so what
we judge always comes from one page at one moment.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from oraculum.core.config import Config
from oraculum.core.errors import OracleError
from oraculum.jobs.model import Job
from oraculum.providers.base import AdoptedUrl
from oraculum.providers.chatgpt import vocabulary as vocab
from oraculum.providers.chatgpt.page import ChatGPTPage, TurnsReading
from oraculum.providers.chatgpt.page_state import (
    conversation_id_from_url,
    generation_failure,
    rate_limited,
    strip_url,
)
from oraculum.providers.terminal import Finish, FinishedBy, ReplyReading, answer_text

__all__ = ["AdoptedUrl", "Answer", "CompletionContext", "adopt_conversation_url", "wait_for_answer"]

URL_POLL_S = 0.25
BACK_AFTER_S = 2.5
RECONCILE_TIMEOUT_S = 45.0
RECONCILE_POLL_S = 0.25


def url_candidate(reading: TurnsReading, archive_name: str) -> str | None:
    """The conversation URL this reading proves is ours: a conversation path whose user turns
    show this job's archive."""
    if conversation_id_from_url(reading.url) is None:
        return None
    if not any(archive_name in text for text in reading.user_texts):
        return None
    return strip_url(reading.url)


async def adopt_conversation_url(
    chat: ChatGPTPage,
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
    reading = first or await chat.turns()
    while time.monotonic() < deadline:
        reading = readings.pop() if readings else await chat.turns()
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
            await chat.page.goto(target)
            continue
        if not evidenced and not went_back and here and time.monotonic() - started > BACK_AFTER_S:
            # We never saw our own conversation's URL: the tab may have been moved on at once.
            # One step back in its history is where the send left it.
            went_back = True
            await on_navigation(here)
            with contextlib.suppress(Exception):
                await chat.page.go_back()
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


def answer_index(reading: TurnsReading, archive_name: str | None, fallback: int) -> int | None:
    """Where this job's answer is in ``reading``: the first assistant turn after the one user
    turn that shows the job's archive. A turn counted before the send is never trusted while
    that evidence can be had: a thread may show earlier exchanges, render them late, or gain
    an assistant message before ours. ``archive_name`` None (the URL was adopted without the
    archive in view) falls back to the pre-send position, which collection then refuses to
    bind, so the answer is never saved from a guess."""
    if archive_name is None:
        return fallback
    if reading.archive_matches == 1:
        return reading.archive_reply_index
    return None


def signature(
    reading: TurnsReading, index: int | None, labels: Sequence[re.Pattern[str]] = ()
) -> str | None:
    """The bound turn's answer text, normalised; None while it streams or has no answer (no
    text, or only reasoning ``labels``)."""
    if index is None or reading.stop_present or index >= len(reading.assistant_texts):
        return None
    text = answer_text(reading.assistant_texts[index], labels)
    return "text:" + re.sub(r"\s+", " ", text).strip() if text else None


def reply_at(reading: TurnsReading, index: int | None) -> ReplyReading | None:
    """What ``reading`` shows of the bound reply (None: it is not there)."""
    if index is None or index >= len(reading.assistant_texts):
        return None

    def flag(values: tuple[bool, ...]) -> bool:
        return index < len(values) and values[index]

    return ReplyReading(
        text=reading.assistant_texts[index],
        stop_present=reading.stop_present,
        action_bar=flag(reading.action_bars),
        indicator=flag(reading.indicators),
    )


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
    labels: Sequence[re.Pattern[str]] = vocab.REASONING_LABEL_PATTERNS

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


def _text_at(reading: TurnsReading, index: int | None) -> str:
    if index is None or index >= len(reading.assistant_texts):
        return ""
    return reading.assistant_texts[index]


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
        text = _text_at(reading, index)
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


async def reconcile_after_reload(
    chat: ChatGPTPage, ctx: CompletionContext, streamed: Answer
) -> Answer:
    """Reload and read the turn again: a hidden tab freezes its stream while the server has
    the whole answer, so the streamed text is only a lower bound. Keep the longer."""
    await chat.page.goto(ctx.chat_url)
    stability = Stability()
    deadline = time.monotonic() + RECONCILE_TIMEOUT_S
    while time.monotonic() < deadline:
        reading = await chat.turns(ctx.archive_name)
        index = ctx.index_in(reading)
        if (
            conversation_id_from_url(reading.url) == ctx.conversation_id
            and index == streamed.index
            and stability.observe(signature(reading, index, ctx.labels))
        ):
            reloaded = _text_at(reading, index)
            if len(reloaded) > len(streamed.text):
                ctx.log(f"reload recovered {len(reloaded) - len(streamed.text)} more characters")
                return Answer(reloaded, index)
            return streamed
        await asyncio.sleep(RECONCILE_POLL_S)
    ctx.log("reload reconciliation found no stable turn; keeping the streamed text")
    return streamed


# How long a revived job's reply may still be finishing before a recollection gives up.
REVIVE_WAIT_S = 600.0


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
