"""The `oracle` and `oracle-followup` prompts with a cut request (issue 40 §4): Claude Code hands
`/mcp__oraculum__oracle review notes.txt and explain X` over as `{"request": "review"}`."""

from __future__ import annotations

from pathlib import Path

import pytest

from oraculum.mcp.prompts import as_received, looks_cut

from .support import mcp_client

CUT_NOTE = "looks cut short"
TAKE_WHOLE = "Take the whole request from the user's message that invoked this prompt"


def test_a_request_looks_cut_when_it_is_one_word_or_an_unclosed_quote() -> None:
    for cut in (
        "review",
        " review ",
        '"review',
        '"review notes.txt and',
        "\u201creview it",
        "'a b",
    ):
        assert looks_cut(cut), cut
    for whole in (
        "review notes.txt and explain X",
        '"review notes.txt" and explain X',
        "\u201creview\u201d and explain",
        "don't stop now",
    ):
        assert not looks_cut(whole), whole
    assert as_received("review the parser") == "review the parser"
    noted = as_received('"review')
    assert noted.startswith('"review\n') and 'Only "\\"review" arrived' in noted


@pytest.mark.slow
async def test_prompts_tell_the_agent_to_take_a_cut_request_from_the_users_message(
    project: Path,
) -> None:
    async with mcp_client(project, "--session", "cut") as client:
        cut = await client.get_prompt("oracle", {"request": "review"})
        whole = await client.get_prompt("oracle", {"request": "review notes.txt and explain X"})
        follow_cut = await client.get_prompt("oracle-followup", {"jobId": "1m8m", "request": "and"})
        follow_whole = await client.get_prompt(
            "oracle-followup", {"jobId": "1m8m", "request": "and the tests?"}
        )
    cut_text = cut.messages[0].content.text  # type: ignore[union-attr]
    assert 'Only "review" arrived as the request argument' in cut_text
    assert CUT_NOTE in cut_text and TAKE_WHOLE in cut_text
    assert "oracle_preflight immediately" in cut_text  # the workflow is all there
    whole_text = whole.messages[0].content.text  # type: ignore[union-attr]
    assert "review notes.txt and explain X" in whole_text and CUT_NOTE not in whole_text
    follow_text = follow_cut.messages[0].content.text  # type: ignore[union-attr]
    assert 'Only "and" arrived' in follow_text and TAKE_WHOLE in follow_text
    assert 'followUpJobId "1m8m"' in follow_text
    assert CUT_NOTE not in follow_whole.messages[0].content.text  # type: ignore[union-attr]
