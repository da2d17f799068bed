"""Deep Research on the ChatGPT page: choose the tool, verify its pill, follow the research.

Deep Research is a composer tool, not a model: the prompt is filled first, then the tool is
chosen from the "Add files and more" menu and verified by its pill in the editor (the prompt
before it, nothing after), then the archive is attached (a later fill would remove the pill).
After send the reply is either the research (its widget, or the model's "Deep Research has
started working on your …") or a clarifying question. A question is answered only when the job
says how (`options.research_answer`, `oraculum submit --research-answer`); otherwise the job
ends `deep_research_needs_answer` with the question saved beside it. Research keeps its stop
control for hours by design, so the stale-stop rule does not apply, and the live status text is
written to the job directory for `oraculum status`.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.async_api import Locator

from oraculum.capture.page import packaged_script
from oraculum.capture.research import read_frame, report_frame
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.fsio import atomic_write_json, atomic_write_text
from oraculum.jobs.model import iso, utc_now
from oraculum.providers.chatgpt import vocabulary as vocab
from oraculum.providers.chatgpt.page import ChatGPTPage
from oraculum.providers.send import squash

__all__ = [
    "QUESTION_FILE",
    "RESEARCH_TIMEOUT_S",
    "STATUS_FILE",
    "StatusRecorder",
    "choose_tool",
    "is_research",
    "needs_answer",
    "pill_verdict",
]

TOOL = "deep_research"
STATUS_FILE = "research-status.json"
QUESTION_FILE = "research-question.md"
# Research runs for hours; the wait allows a day even when the answer timeout is shorter.
RESEARCH_TIMEOUT_S = 24 * 3600.0
NO_STALE_STOP = math.inf  # the stop control stays for the whole research, by design
OPENER_TIMEOUT_S = 5.0
OPENER_SAMPLE_S = 0.1
STILL_SAMPLES = 3
ENTRY_POLLS, ENTRY_POLL_S, REOPEN_FROM = 10, 0.3, 3
QUESTION_QUOTE = 300


def _not_found(message: str, **details: Any) -> OracleError:
    return OracleError(
        ErrorCode.DEEP_RESEARCH_TOGGLE_NOT_FOUND,
        message,
        details=details or None,
        suggested_next_step="Retry; if it persists, run `oraculum doctor --live`.",
    )


async def _stationary_opener(chat: ChatGPTPage) -> dict[str, Any]:
    """Wait until "Add files and more" is enabled, uncovered and holds still for three samples
    (sampled on timers: the job's tab is usually hidden and gets no animation frames)."""
    args = {"addFilesLabels": list(vocab.ADD_FILES_LABELS), "caretToEnd": True}
    rects: list[Any] = []
    last: dict[str, Any] = {"found": False}
    deadline = time.monotonic() + OPENER_TIMEOUT_S
    while time.monotonic() < deadline:
        last = await chat.evaluate("tool_opener.js", **args)
        args["caretToEnd"] = False
        usable = last.get("found") and last["enabled"] and last["uncovered"] and last["rect"][2]
        rects = [*rects, last["rect"]][-STILL_SAMPLES:] if usable else []
        if len(rects) == STILL_SAMPLES and all(r == rects[0] for r in rects):
            return last
        await asyncio.sleep(OPENER_SAMPLE_S)
    raise _not_found(f'"{vocab.ADD_FILES_LABEL}" never became usable and still.', opener=last)


async def _entry(chat: ChatGPTPage) -> Locator | None:
    """The menu's Deep research entry: the outermost visible element whose text starts with
    it, outside the editor (a prompt may begin with the same words) and outside the turns (a
    sent Deep Research message shows a pill with the same name)."""
    entries = chat.page.locator(vocab.TOOL_ENTRY_CANDIDATES).filter(
        has_text=vocab.DEEP_RESEARCH_ENTRY
    )
    elsewhere = ", ".join([vocab.COMPOSER_EDITOR_SELECTOR, *vocab.TURN_CONTAINER_SELECTORS])
    for i in range(await entries.count()):
        entry = entries.nth(i)
        if await entry.evaluate(
            packaged_script("oraculum.providers", "js/not_within.js"), elsewhere
        ):
            return entry
    return None


async def _click_entry(chat: ChatGPTPage) -> None:
    """Open the menu and click its Deep research entry (the menu animates open)."""
    await chat.guarded_click(chat.add_files().first, vocab.ADD_FILES_LABEL)
    for attempt in range(ENTRY_POLLS):
        entry = await _entry(chat)
        if entry is not None:
            await entry.click()
            return
        if attempt >= REOPEN_FROM:
            opener = await chat.evaluate(
                "tool_opener.js", addFilesLabels=list(vocab.ADD_FILES_LABELS)
            )
            if opener.get("found") and not opener.get("expanded"):
                await chat.guarded_click(chat.add_files().first, vocab.ADD_FILES_LABEL)
        await asyncio.sleep(ENTRY_POLL_S)
    raise _not_found(f'The "{vocab.ADD_FILES_LABEL}" menu showed no Deep research entry.')


def pill_verdict(reading: dict[str, Any], prompt: str) -> str | None:
    """Why the editor does not show the prompt followed by the Deep research pill (None: it
    does)."""
    if not reading.get("found"):
        return (
            f"no {vocab.DEEP_RESEARCH_PILLS[0]!r} pill in the composer "
            f"(pills: {reading.get('labels')})"
        )
    if squash(str(reading.get("after") or "")):
        return f"text after the pill: {reading['after']!r}"
    if squash(str(reading.get("before") or "")) != squash(prompt):
        return "the prompt before the pill is not the job's prompt"
    return None


async def choose_tool(chat: ChatGPTPage, prompt: str, log: Callable[[str], None]) -> dict[str, Any]:
    """Choose Deep research and verify its pill; returns the observed selection."""
    await _stationary_opener(chat)
    await _click_entry(chat)
    reading: dict[str, Any] = {}
    for _ in range(ENTRY_POLLS):
        reading = await chat.evaluate(
            "tool_pill.js",
            pillSelector=vocab.TOOL_PILL_SELECTOR,
            pillLabels=list(vocab.DEEP_RESEARCH_PILLS),
        )
        if pill_verdict(reading, prompt) is None:
            log("Deep research chosen; its pill follows the prompt")
            shows = reading.get("label") or vocab.DEEP_RESEARCH_PILLS[0]
            return {"tool": TOOL, "shows": shows, "pill": True}
        await asyncio.sleep(ENTRY_POLL_S)
    raise _not_found(
        f"The Deep research tool was not verified: {pill_verdict(reading, prompt)}.",
        labels=reading.get("labels"),
    )


async def widget_count(chat: ChatGPTPage) -> int:
    return await chat.page.locator(vocab.DEEP_RESEARCH_FRAME_SELECTOR).count()


def is_research(text: str, widgets_now: int, widgets_before: int) -> bool:
    """A reply is research when a new widget appeared or the turn says research started;
    anything else is the model asking a question first."""
    return widgets_now > widgets_before or text.strip().startswith(
        vocab.DEEP_RESEARCH_STARTED_PREFIX
    )


def needs_answer(job_dir: Path, job_id: str, question: str) -> OracleError:
    """Save the question beside the job and say how a follow-up answers it."""
    atomic_write_text(job_dir / QUESTION_FILE, question.strip() + "\n")
    quoted = " ".join(question.split())
    if len(quoted) > QUESTION_QUOTE:
        quoted = quoted[: QUESTION_QUOTE - 1] + "…"
    return OracleError(
        ErrorCode.DEEP_RESEARCH_NEEDS_ANSWER,
        f"Deep Research asked a question before starting: {quoted}",
        details={"question": question.strip(), "questionPath": str(job_dir / QUESTION_FILE)},
        suggested_next_step=(
            f'Answer it in the same conversation: `oraculum followup {job_id} "<answer>" '
            '--preset deep_research`, or resubmit with `--research-answer "<answer>"`.'
        ),
    )


class StatusRecorder:
    """Reads the research widget's live status text on a throttle and writes it (when it
    changed) to the job directory, where `oraculum status` shows it."""

    def __init__(self, chat: ChatGPTPage, job_dir: Path, every_s: float) -> None:
        self.chat, self.path, self.every_s = chat, job_dir / STATUS_FILE, every_s
        self.last_text: str | None = None
        self.next_at = 0.0

    async def __call__(self) -> None:
        now = time.monotonic()
        if now < self.next_at:
            return
        self.next_at = now + self.every_s
        frame = await report_frame(self.chat.page, None)
        reading = await read_frame(frame) if frame else None
        if reading is None:
            return
        text = " · ".join(line.strip() for line in (reading.status_text or "").splitlines())
        text = text or ("Research completed" if reading.completed else "")
        if text and text != self.last_text:
            self.last_text = text
            # A status line is a courtesy: a full disk must not end hours of research.
            with contextlib.suppress(OracleError):
                atomic_write_json(self.path, {"text": text, "at": iso(utc_now())})
