"""Collection of what a turn holds besides its answer, in real Chromium against seeded
simulator conversations in both shells: compared candidates, and chrome inside the turn."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.async_api import Page

from oraculum.capture.collect import collect, recollect
from oraculum.capture.page import TurnVocabulary
from oraculum.core.config import Config
from oraculum.providers.chatgpt.vocabulary import turn_vocabulary

from .conftest import Shell

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

TURN_WORDS = turn_vocabulary()
SECOND = "### Second candidate\n\nA shorter answer."


async def _collect(
    shell: Shell,
    tmp_path: Path,
    page: Page,
    cid: str,
    vocabulary: TurnVocabulary | None = TURN_WORDS,
):
    job, paths, persist = shell.job_on(tmp_path, cid)

    async def reopen() -> None:
        await page.goto(shell.sim.conversation_url(cid))
        await page.wait_for_selector(".assistant-message")

    result = await collect(
        page,
        job,
        paths,
        Config(),
        response_index=0,
        reopen=reopen,
        persist=persist,
        vocabulary=vocabulary,
    )
    return persist.finish(result.patch), paths, persist, reopen


async def test_comparison_is_recollected_to_the_same_files(shell: Shell, tmp_path: Path) -> None:
    page, cid = await shell.open(["Q", {"text": "The **first** candidate.", "comparison": SECOND}])
    job, paths, persist, reopen = await _collect(shell, tmp_path, page, cid)
    first, second = paths.response.read_text(), (paths.dir / "response-2.md").read_text()
    assert first == "The **first** candidate.\n" and second == SECOND + "\n"
    assert "response_comparison" in job.collection_gaps
    reply = shell.sim.state.conversations[cid].assistant_turns()[0]
    assert job.collection_binding["messageId"] == reply.message_id
    record = json.loads((paths.dir / "response.capture.json").read_text())
    labels = [r["label"] for r in record["comparison"]["responses"]]
    assert labels == ["Response 1", "Response 2"]
    # Recollection reacquires the same turn by the first candidate's id and rewrites nothing.
    again = await recollect(
        page, job, paths, Config(), reopen=reopen, persist=persist, vocabulary=TURN_WORDS
    )
    assert again.status == job.collection_status
    assert paths.response.read_text() == first
    assert (paths.dir / "response-2.md").read_text() == second
    assert not list(paths.dir.glob("response*.previous"))
    assert shell.sim.state.events_of("page:preference_chosen") == []
    await page.close()


async def test_candidates_without_a_comparison_question_are_refused(
    shell: Shell, tmp_path: Path
) -> None:
    """Without the provider's words a second message in the turn is not a comparison: two
    identities in one turn stay refused, never saved as one answer."""
    page, cid = await shell.open(["Q", {"text": "One.", "comparison": SECOND}])
    job, paths, _persist, _reopen = await _collect(shell, tmp_path, page, cid, vocabulary=None)
    assert job.collection_status == "failed"
    assert any("identity_ambiguous" in g for g in job.collection_gaps)
    assert not paths.response.exists() and not (paths.dir / "response-2.md").exists()
    await page.close()


# Chrome words inside the answer's own prose, headings and code are the answer.
PROSE_HTML = (
    '<div class="thought-header"><span>Thought for 3s</span></div>'
    '<div class="markdown prose"><h2>Sources</h2><p>Memory updated</p>'
    "<ul><li>Thought for 25s</li></ul><pre><code>Manage memories</code></pre></div>"
    '<div role="button" tabindex="0">Sources</div>'
)


async def test_chrome_words_in_the_answers_prose_stay(shell: Shell, tmp_path: Path) -> None:
    page, cid = await shell.open(["Q", {"html": PROSE_HTML}])
    _job, paths, _persist, _reopen = await _collect(shell, tmp_path, page, cid)
    answer = paths.response.read_text()
    assert answer.startswith("## Sources\n")
    for kept in ("Memory updated", "- Thought for 25s", "Manage memories"):
        assert kept in answer, kept
    assert "Thought for 3s" not in answer and answer.count("Sources") == 1
    record = json.loads((paths.dir / "response.capture.json").read_text())
    assert {"kind": "notice", "text": "Thought for 3s"} in record["chrome"]
    assert {"kind": "control", "text": "Sources"} in record["chrome"]
    await page.close()
