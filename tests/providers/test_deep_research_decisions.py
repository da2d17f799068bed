"""The Deep Research driver's pure decisions: the pill, research or question, the saved question."""

from __future__ import annotations

import inspect
import typing
from pathlib import Path

import pytest

from oraculum.core.errors import OracleError
from oraculum.mcp.families.oracle import oracle_submit
from oraculum.providers.chatgpt.deep_research import (
    QUESTION_FILE,
    is_research,
    needs_answer,
    pill_verdict,
)
from oraculum.service.caller import Caller
from oraculum.service.submit import research_answer_extras, submit

PROMPT = "Compare zstd and gzip."


def test_the_pill_must_follow_exactly_the_prompt() -> None:
    ok = {"found": True, "labels": ["Deep research"], "before": PROMPT + " ", "after": "\ufeff"}
    assert pill_verdict(ok, PROMPT) is None
    missing = {"found": False, "labels": ["Web search"]}
    assert "no 'Deep research' pill" in (pill_verdict(missing, PROMPT) or "")
    assert "text after the pill" in (pill_verdict({**ok, "after": " more"}, PROMPT) or "")
    assert "prompt before the pill" in (pill_verdict({**ok, "before": "other"}, PROMPT) or "")


def test_research_is_a_new_widget_or_the_started_text() -> None:
    assert is_research("anything", widgets_now=2, widgets_before=1)
    assert is_research("Deep Research has started working on your report.", 1, 1)
    assert not is_research("Before I start the research, two quick questions:", 1, 1)


def test_a_question_is_saved_and_the_error_says_how_to_answer(tmp_path: Path) -> None:
    question = "Which formats?\n\n" + "x" * 400
    error = needs_answer(tmp_path, "1m8rva6wy89c6", question)
    assert error.code == "deep_research_needs_answer" and not error.retryable
    assert (tmp_path / QUESTION_FILE).read_text() == question + "\n"
    assert (tmp_path / QUESTION_FILE).stat().st_mode & 0o777 == 0o600
    assert error.message.startswith("Deep Research asked a question before starting: Which")
    assert error.message.endswith("…") and len(error.message) < 400
    assert "oraculum followup 1m8rva6wy89c6" in (error.suggested_next_step or "")
    assert error.details["question"] == question


def test_research_answer_is_refused_off_deep_research_and_when_blank(project: Path) -> None:
    with pytest.raises(OracleError) as off:
        extras = research_answer_extras("Both.")
        submit(
            "q",
            ["."],
            caller=Caller(cwd=project, session="s"),
            provider="test",
            selection_extras=extras,
        )
    assert off.value.code == "invalid_argument" and "deep_research" in off.value.message
    with pytest.raises(OracleError) as blank:
        research_answer_extras("  ")
    assert blank.value.code == "invalid_argument" and "non-blank" in blank.value.message


def test_mcp_submit_declares_the_research_answer() -> None:
    parameter = inspect.signature(oracle_submit).parameters["researchAnswer"]
    assert parameter.default is None
    declared = typing.get_type_hints(oracle_submit, include_extras=True)["researchAnswer"]
    (field,) = [m for m in declared.__metadata__ if hasattr(m, "description")]
    assert "deep_research" in field.description and field.metadata  # described and bounded


def test_the_status_table_marks_a_researching_job() -> None:
    from oraculum.cli.status_cmd import phase_cell

    job = {"phase": "awaiting_response", "research": {"state": "researching", "text": "x"}}
    assert phase_cell(job) == "awaiting response (researching)"  # phases in words (issue 38 §5)
    assert phase_cell({"phase": "awaiting_response"}) == "awaiting response"
    assert phase_cell({"phase": "failed", "research": {"questionPath": "q"}}) == "failed"
