"""Issue 37 §4, the pure decisions: when a reply is finished (providers.terminal), what one
poll shows of the bound reply, and what `answer_not_saved` tells a reader."""

from __future__ import annotations

from pathlib import Path

import pytest

from capture.support import make_job
from oraculum.core.config import WorkerSection
from oraculum.core.errors import ErrorCode, ExitCode
from oraculum.jobs.model import Job, PromptSendState, Status
from oraculum.providers.chatgpt import vocabulary as chatgpt_vocab
from oraculum.providers.grok import vocabulary as grok_vocab
from oraculum.providers.terminal import (
    Finish,
    FinishedBy,
    ReplyReading,
    answer_text,
    is_label_only,
)
from oraculum.providers.turns import TurnsReading, reply_at, signature
from oraculum.service.summary import _answer_facts

LABELS = chatgpt_vocab.REASONING_LABEL_PATTERNS
ANSWER = "Here is the review of src/app.py."


def reply(
    text: str = ANSWER, *, stop: bool = False, bar: bool = False, indicator: bool = False
) -> ReplyReading:
    return ReplyReading(text=text, stop_present=stop, action_bar=bar, indicator=indicator)


@pytest.mark.parametrize(
    "label",
    [
        "Thought for 25s",
        "Thought for 1m 7s",
        "Worked for 15m 7s",
        "Reasoned for 2m",
        "Thinking…",
        "Thinking...",
        "Thinking",
        "Reasoning",
        "Stopped thinking",
        "Thought for a few seconds",
    ],
)
def test_a_reasoning_label_alone_is_not_an_answer(label: str) -> None:
    assert is_label_only(label, LABELS)
    assert is_label_only(f"{label}\n\n", LABELS)
    assert answer_text(f"{label}\n{ANSWER}", LABELS) == ANSWER
    assert is_label_only(label, grok_vocab.REASONING_LABEL_PATTERNS)


@pytest.mark.parametrize(
    "text",
    [
        ANSWER,
        "Thinking about it, the answer is 42.",
        "I thought for a while about src/app.py and found two bugs.",
        "Reasoning: the loop never ends.",
    ],
)
def test_an_answer_that_mentions_thinking_is_an_answer(text: str) -> None:
    assert not is_label_only(text, LABELS)
    assert answer_text(text, LABELS) == text
    assert not is_label_only("", LABELS)  # nothing is not a label either: it is nothing


def test_the_action_bar_ends_a_stable_answer_on_the_second_poll() -> None:
    finish = Finish(quiet_s=90, label_patterns=LABELS)
    assert finish.observe(reply(bar=True), 0.0) is None  # one frame is not enough
    assert finish.observe(reply(bar=True), 0.25) == FinishedBy.ACTION_BAR


def test_without_the_action_bar_the_answer_must_outlast_the_quiet_window() -> None:
    finish = Finish(quiet_s=90, label_patterns=LABELS)
    for t in (0.0, 1.0, 30.0, 60.0, 89.9):
        assert finish.observe(reply(), t) is None
    assert finish.observe(reply(), 90.0) == FinishedBy.QUIET


def test_a_changing_answer_restarts_the_quiet_window() -> None:
    finish = Finish(quiet_s=10, label_patterns=LABELS)
    assert finish.observe(reply("Part one"), 0.0) is None
    assert finish.observe(reply("Part one, part two"), 8.0) is None
    assert finish.observe(reply("Part one, part two"), 12.0) is None
    assert finish.observe(reply("Part one, part two"), 18.0) == FinishedBy.QUIET


@pytest.mark.parametrize(
    "busy",
    [
        reply(stop=True, bar=True),  # the stop control: still answering
        reply(LABEL := "Thought for 25s", bar=True),  # only a reasoning label
        reply("", bar=True),  # nothing yet
        None,  # the reply is not there
    ],
)
def test_no_evidence_while_streaming_reasoning_or_empty(busy: ReplyReading | None) -> None:
    finish = Finish(quiet_s=1, label_patterns=LABELS)
    assert all(finish.observe(busy, float(t)) is None for t in range(0, 600, 5))


def test_an_indicator_holds_the_quiet_window_but_not_the_action_bar() -> None:
    """A "Thinking" shimmer in the turn keeps a quiet answer from counting as finished; the
    turn's own action bar under a stable answer is evidence enough on its own."""
    finish = Finish(quiet_s=10, label_patterns=LABELS)
    assert all(finish.observe(reply(indicator=True), float(t)) is None for t in range(0, 60))
    # The window runs from the last poll that showed the indicator (t=59).
    assert finish.observe(reply(), 60.0) is None
    assert finish.observe(reply(), 68.9) is None
    assert finish.observe(reply(), 69.0) == FinishedBy.QUIET
    shown = Finish(quiet_s=10, label_patterns=LABELS)
    assert shown.observe(reply(indicator=True, bar=True), 0.0) is None
    assert shown.observe(reply(indicator=True, bar=True), 0.25) == FinishedBy.ACTION_BAR


def test_silent_gap_between_reasoning_and_answer_never_finishes() -> None:
    """The stop control goes away after reasoning; for 65 s the turn shows only its label;
    then the answer streams and its action bar appears."""
    finish = Finish(quiet_s=90, label_patterns=LABELS)
    assert finish.observe(reply(stop=True, indicator=True, text=""), 0.0) is None
    for t in range(1, 66):
        assert finish.observe(reply("Thought for 25s"), float(t)) is None
    assert finish.observe(reply("Thought for 25s\nHere", stop=True), 66.0) is None
    assert finish.observe(reply(f"Thought for 25s\n{ANSWER}", bar=True), 67.0) is None
    assert finish.observe(reply(f"Thought for 25s\n{ANSWER}", bar=True), 67.25) == (
        FinishedBy.ACTION_BAR
    )


def test_a_pause_mid_answer_shorter_than_the_window_does_not_finish() -> None:
    finish = Finish(quiet_s=90, label_patterns=LABELS)
    for t in range(0, 61):  # a 60 s silent pause after the first sentence, no stop, no bar
        assert finish.observe(reply("First sentence."), float(t)) is None
    assert finish.observe(reply("First sentence. Second one.", stop=True), 61.0) is None


def test_reply_at_reads_the_bound_turns_own_evidence() -> None:
    reading = TurnsReading(
        url="https://chatgpt.com/c/x",
        assistant_texts=["earlier answer", "Thought for 25s"],
        user_texts=[],
        stop_present=False,
        send_enabled=True,
        hidden=False,
        action_bars=(True, False),
        indicators=(False, True),
    )
    assert reply_at(reading, 1) == reply("Thought for 25s", indicator=True)
    assert reply_at(reading, 0) == reply("earlier answer", bar=True)
    assert reply_at(reading, 2) is None and reply_at(reading, None) is None
    assert signature(reading, 1, LABELS) is None  # the reload reconciliation skips labels too
    legacy = TurnsReading("u", ["a"], [], False, True, False)  # a reading without evidence
    assert reply_at(legacy, 0) == reply("a")


def test_the_quiet_window_is_configured_bounded_and_outlasts_a_minute() -> None:
    assert WorkerSection().completion_quiet_ms == 90_000 > 60_000
    assert WorkerSection(completion_quiet_ms=1500).completion_quiet_ms == 1500
    for bad in (0, 499, 3_600_001):
        with pytest.raises(ValueError):
            WorkerSection(completion_quiet_ms=bad)


def test_answer_not_saved_is_a_failure_that_points_at_recollect() -> None:
    code = ErrorCode.ANSWER_NOT_SAVED
    assert code.exit_code == ExitCode.FAILED and code.retryable is False
    assert "recollect" in code.meaning


@pytest.fixture
def failed_unsaved(tmp_path: Path) -> Job:
    """A job whose answer ended but was not saved, as the worker records `answer_not_saved`."""
    _, job, _ = make_job(tmp_path, conversation_id="c1", chat_url="https://chatgpt.com/c/c1")
    return job.model_copy(
        update={
            "status": Status.FAILED,
            "error_code": "answer_not_saved",
            "generation_status": "completed",
            "recollection_needed": True,
            "prompt_send_state": PromptSendState.ACCEPTED,
        }
    )


def test_the_summary_says_not_saved_and_to_recollect(failed_unsaved: Job) -> None:
    job = failed_unsaved
    assert _answer_facts(job, saved=False) == {
        "answerSaved": False,
        "nextStep": f"oraculum read {job.id} --recollect",
    }
    assert _answer_facts(job.model_copy(update={"status": Status.COMPLETE}), saved=True) == {
        "answerSaved": True
    }
    # Before the provider finished, or for a job that never answered: nothing to say.
    assert _answer_facts(job.model_copy(update={"generation_status": None}), saved=False) == {}
