"""Pure decisions of the ChatGPT driver: send acceptance, URL evidence, stability, stale stop."""

from __future__ import annotations

from oraculum.providers.adoption import url_candidate
from oraculum.providers.chatgpt.pickers import Wanted, chip_label
from oraculum.providers.completion import Stability, StaleStop
from oraculum.providers.send import SendBaseline, send_accepted
from oraculum.providers.turns import TurnsReading, signature

HOME = "https://chatgpt.com/"
CONV = "https://chatgpt.com/c/6760a1b2-0000-4000-8000-1234567890ab"


def reading(url: str = HOME, answers=(), users=(), stop=False) -> TurnsReading:
    return TurnsReading(
        url=url,
        assistant_texts=list(answers),
        user_texts=list(users),
        stop_present=stop,
        send_enabled=False,
        hidden=False,
    )


def test_send_is_accepted_by_any_one_signal() -> None:
    before = SendBaseline.of(reading(HOME, answers=["old"]))
    assert not send_accepted(before, reading(HOME, answers=["old"]))
    assert send_accepted(before, reading(CONV, answers=["old"]))  # a new conversation URL
    assert send_accepted(before, reading(HOME, answers=["old", ""]))  # a new assistant turn
    assert send_accepted(before, reading(HOME, answers=["old"], stop=True))  # a stop control


def test_send_on_an_existing_conversation_needs_a_new_turn_or_stop() -> None:
    before = SendBaseline.of(reading(CONV, answers=["a1"]))
    assert not send_accepted(before, reading(CONV, answers=["a1"]))
    assert send_accepted(before, reading(CONV, answers=["a1", "…"]))
    stopped_before = SendBaseline.of(reading(CONV, answers=["a1"], stop=True))
    assert not send_accepted(stopped_before, reading(CONV, answers=["a1"], stop=True))


def test_url_evidence_needs_the_jobs_archive_in_a_user_turn() -> None:
    name = "context-0abc.tar.zst"
    assert url_candidate(reading(CONV + "?x=1", users=[f"{name}\nquestion"]), name) == CONV
    assert url_candidate(reading(CONV, users=["context-other.tar.zst"]), name) is None
    assert url_candidate(reading(HOME, users=[name]), name) is None  # not a conversation


def test_completion_needs_two_equal_finished_readings() -> None:
    stable = Stability()
    assert not stable.observe(signature(reading(CONV, answers=["hel"], stop=True), 0))
    assert not stable.observe(signature(reading(CONV, answers=["hello"]), 0))
    assert stable.observe(signature(reading(CONV, answers=["hello "]), 0))  # whitespace-normalised
    assert signature(reading(CONV, answers=["a"]), 1) is None  # the bound turn does not exist yet
    assert signature(reading(CONV, answers=["   "]), 0) is None  # empty text never completes


def test_stale_stop_after_unchanged_text() -> None:
    stale = StaleStop(limit_s=120)
    assert not stale.observe(True, "", 0)  # empty text (still thinking) never ages
    assert not stale.observe(True, "partial", 10)
    assert not stale.observe(True, "partial", 129)
    assert stale.observe(True, "partial", 130.5)
    assert not stale.observe(True, "more text", 131)  # a change restarts the clock
    assert not stale.observe(False, "more text", 999)


def test_chip_labels() -> None:
    assert chip_label(Wanted("thinking", "standard", False)) == "Thinking"
    assert chip_label(Wanted("thinking", "heavy", False)) == "Heavy Thinking"
    assert chip_label(Wanted("pro", "extended", False)) == "Extended Pro"
    assert chip_label(Wanted("instant", None, True)) is None
