"""What a turn holds besides the answer (issue 37 §5-6), through real workers and Chromium:
two candidate answers to compare, and app chrome inside the turn."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from homes import bare_project, complete  # noqa: F401 (bare_project: the fixture)
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.read import read
from oraculum.service.status import status
from oraculum.sessions.wakeup import wakeup_text
from oraculum.simulator.answers import ALTERNATIVE_HEADING, FEEDBACK_QUESTION

from .conftest import submit_chatgpt, write_config

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SHELLS = pytest.mark.parametrize("shell", ["classic", "redesign"])


def _capture_record(job_dir: Path) -> dict:
    return json.loads((job_dir / "response.capture.json").read_text())


@SHELLS
def test_comparison_answer_saves_both_and_records_gap(seeded, sim, project, shell) -> None:
    config = write_config(sim, shell=shell, scenario="comparison_answer")
    done = complete(submit_chatgpt(project, config))
    job_dir = Path(done.response_path).parent
    first = Path(done.response_path).read_text()
    second = (job_dir / "response-2.md").read_text()
    # Response 1 is the receipt, response 2 the alternative; neither holds the other or the
    # comparison's own controls.
    assert done.archive_sha256 in first and ALTERNATIVE_HEADING not in first
    assert ALTERNATIVE_HEADING in second and done.archive_sha256 not in second
    for text in (first, second):
        assert "Which response do you prefer" not in text
        assert "I prefer this response" not in text
        assert "Response 1" not in text and "Response 2" not in text
    assert (job_dir / "response-2.raw.txt").exists() and (job_dir / "response-2.raw.html").exists()
    assert "response_comparison" in (done.collection_gaps or [])
    assert done.collection_status == "partial"
    record = _capture_record(job_dir)
    comparison = record["comparison"]
    assert comparison["question"].startswith("Which response do you prefer?")
    assert [r["path"] for r in comparison["responses"]] == ["response.md", "response-2.md"]
    conversation = sim.state.conversations[done.conversation_id]
    reply = conversation.assistant_turns()[-1]
    assert done.collection_binding["messageId"] == reply.message_id
    assert comparison["responses"][1]["messageId"] == reply.comparison["message_id"]
    # Never a preference click, and the result says what happened.
    assert sim.state.events_of("page:preference_chosen") == []
    shown = status(done.id, caller=Caller(cwd=project))
    assert "response_comparison" in shown.to_json()["job"]["collectionGaps"]
    assert "none was chosen" in shown.text("cli")
    result = read(done.id, caller=Caller(cwd=project))
    saved = [r["path"] for r in result.gaps["comparison"]["responses"]]
    assert saved == [str(job_dir / "response.md"), str(job_dir / "response-2.md")]
    text = result.text("cli")
    assert "none was chosen" in text and str(job_dir / "response-2.md") in text
    assert "none was chosen" in wakeup_text(done, JobStore(), "mcp")


def test_follow_up_after_a_comparison_binds_to_its_own_turn(seeded, sim, project) -> None:
    config = write_config(sim, scenario="comparison_answer")
    first = complete(submit_chatgpt(project, config, prompt="First question"))
    second = complete(
        submit_chatgpt(
            project,
            config,
            prompt="Second question",
            chat_url=first.chat_url,
            conversation_id=first.conversation_id,
            follow_up_to=first.id,
        )
    )
    conversation = sim.state.conversations[first.conversation_id]
    replies = conversation.assistant_turns()
    assert second.collection_binding["messageId"] == replies[-1].message_id
    answer = Path(second.response_path).read_text()
    assert "Second question" in answer and ALTERNATIVE_HEADING not in answer
    assert not (Path(second.response_path).parent / "response-2.md").exists()
    assert "response_comparison" not in (second.collection_gaps or [])
    assert sim.state.events_of("page:preference_chosen") == []


@SHELLS
def test_chrome_inside_turn_stays_out_of_response_md(seeded, sim, project, shell) -> None:
    config = write_config(sim, shell=shell, scenario="turn_chrome")
    done = complete(submit_chatgpt(project, config))
    answer = Path(done.response_path).read_text()
    assert done.archive_sha256 in answer  # the answer itself is all there
    for chrome in (
        "Thought for 25s",
        "Memory updated",
        "Manage memories",
        "Sources",
        FEEDBACK_QUESTION,
        "Thumbs up",
    ):
        assert chrome not in answer, chrome
    assert answer.lstrip().startswith("### Upload receipt")
    assert done.response_fidelity == "derived_markdown"
    chrome_seen = {c["text"] for c in _capture_record(Path(done.response_path).parent)["chrome"]}
    assert {"Thought for 25s", "Memory updated", "Manage memories", "Sources"} <= chrome_seen
