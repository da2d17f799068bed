"""Pure pieces of collecting what a turn holds besides its answer: compared candidates and
chrome inside the turn (issue 37 §5-6)."""

from __future__ import annotations

import re

from oraculum.capture import outcome
from oraculum.capture.files import reply_stem
from oraculum.capture.outcome import CollectionStatus, Fidelity, Gaps
from oraculum.capture.page import CaptureRequest, TurnCapture
from oraculum.providers.chatgpt.vocabulary import turn_vocabulary


def test_chrome_the_capture_named_is_left_out_of_a_text_only_answer() -> None:
    raw = "Memory updated\nManage memories\nThe answer.\nMemory updated soon, we hope."
    choice = outcome.choose_response([], "", raw, ["Memory updated", "Manage  memories"])
    assert choice is not None and choice.fidelity == Fidelity.TEXT_ONLY
    assert choice.text == "The answer.\nMemory updated soon, we hope.\n"
    # Without names only the known reasoning labels go.
    assert outcome.strip_chrome("Thought for 25s\nMemory updated") == "Memory updated"


def test_a_comparison_is_a_required_gap() -> None:
    gaps = Gaps()
    outcome.add_comparison_gaps(gaps, [outcome.ResponseChoice("b\n", Fidelity.EXACT_CODE, "m")])
    assert gaps.all() == [outcome.GAP_COMPARISON]
    assert outcome.collection_status(True, gaps) == CollectionStatus.PARTIAL


def test_a_compared_candidate_without_text_or_redacted_is_named() -> None:
    redacted = outcome.ResponseChoice("b\n", Fidelity.TEXT_ONLY, "m", redacted=True)
    gaps = Gaps()
    outcome.add_comparison_gaps(gaps, [redacted, None])
    assert gaps.required == [outcome.GAP_COMPARISON, outcome.GAP_REDACTED]
    assert gaps.optional == ["capture_error:comparison response 3 has no text"]


def test_each_candidate_has_its_own_file_stem() -> None:
    assert [reply_stem(i) for i in (1, 2, 3)] == ["response", "response-2", "response-3"]


def test_a_comparison_capture_reads_every_candidate() -> None:
    reply = {"rawText": "two", "rawHtml": "<p>two</p>", "messageId": "m2", "label": "Response 2"}
    capture = TurnCapture.from_js(
        {
            "ok": True,
            "url": "http://127.0.0.1/c/x",
            "messageId": "m1",
            "rawText": "one",
            "rawHtml": "<p>one</p>",
            "chrome": [{"kind": "notice", "text": "Memory updated"}],
            "comparison": {
                "question": "Which response do you prefer?",
                "replies": [{"rawText": "one", "messageId": "m1", "label": "Response 1"}, reply],
            },
        }
    )
    assert capture.reply.raw_html == "<p>one</p>" and capture.reply.message_id == "m1"
    assert capture.reply.chrome == [{"kind": "notice", "text": "Memory updated"}]
    assert capture.comparison is not None
    assert [r.message_id for r in capture.comparison.replies] == ["m1", "m2"]
    assert capture.comparison.replies[1].label == "Response 2"
    assert TurnCapture.from_js({"ok": True, "url": ""}).comparison is None


def test_the_chatgpt_turn_words_reach_the_page_script() -> None:
    words = CaptureRequest(0, turn=turn_vocabulary()).to_js()["turn"]
    assert "I prefer this response" in words["comparisonChoices"]
    assert words["chromeSelectors"][0] == 'button, [role="button"]'  # every control
    # Without a provider's words only controls are chrome and nothing is a comparison.
    bare = CaptureRequest(0).to_js()["turn"]
    assert bare["chromePatterns"] == [] and bare["comparisonQuestions"] == []


def test_the_chrome_words_match_whole_notices_only() -> None:
    words = turn_vocabulary()
    patterns = [re.compile(f"^(?:{p})$", re.I) for p in words.chrome_patterns]

    def chrome(text: str) -> bool:
        return any(p.match(text) for p in patterns)

    for notice in ("Thought for 25s", "Reasoned for 1m 7s", "Memory updated", "Manage memories"):
        assert chrome(notice), notice
    for answer in ("Thought for a while about caching", "Memory updated twice a day", "Sources"):
        assert not chrome(answer), answer
    question = re.compile(f"^(?:{words.comparison_questions[0]})$", re.I)
    assert question.match(
        "Which response do you prefer? Your choice will help make ChatGPT better."
    )
