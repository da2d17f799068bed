"""Issue 13 §1: pages where the assistant turn at the pre-send count is not the job's answer.

`prefilled_thread`: the new chat shows an earlier exchange a moment after the composer is ready.
`extra_assistant`: an assistant message appears before the user turn of each send. In both, only
the reply to the user turn that shows the job's archive is the answer; a binding by the count of
assistant turns seen before sending lands on another turn. Each flag runs on both shells, and
the two flags together cover all four pickers.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.async_api import Page, expect

from oraculum.simulator import Simulator
from oraculum.simulator.actions import EXTRA_ASSISTANT_TEXT, PREFILL_ARCHIVE, PREFILL_PROMPT

from .helpers import (
    assistant_texts,
    assistant_turns,
    attach,
    composer,
    make_tar_zst,
    reply_after_archive,
    send_button,
    turn_vocabulary,
    wait_answer_done,
    wait_editable,
)

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]

UUID_PATH = re.compile(r"/c/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
# Each flag on both shells; between them every picker on every shell.
PREFILL_CASES = [
    ("classic", "legacy"),
    ("classic", "intelligence"),
    ("redesign", "chips"),
    ("redesign", "power"),
]
EXTRA_CASES = [
    ("classic", "chips"),
    ("classic", "power"),
    ("redesign", "legacy"),
    ("redesign", "intelligence"),
]
# Long enough that the count taken right after the composer hydrates precedes it on a busy box.
PREFILL_DELAY_MS = 600


def _archive(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    make_tar_zst(path, {"src/app.py": b"print('ours')\n", "README.md": b"# ours\n"})
    return path


async def _send_with_archive(page: Page, shell: str, archive: Path, prompt: str) -> None:
    await attach(page, archive)
    await composer(page, shell).fill(prompt)
    await expect(send_button(page, shell)).to_be_enabled()
    await send_button(page, shell).click()


async def _assert_ordinary_vocabulary(page: Page, shell: str, message_ids: str = "both") -> None:
    """Every turn carries the same headings and id attributes: only position tells them apart."""
    turns = await turn_vocabulary(page)
    assert turns, "no turns on the page"
    for turn in turns:
        heading = "ChatGPT said:" if turn["role"] == "assistant" else "You said:"
        assert turn["heading"] == heading, turn
        assert bool(turn["messageId"]) == (message_ids == "both"), turn
        selection = shell == "redesign" and message_ids != "none"
        assert bool(turn["selectionId"]) == selection, turn
        if turn["messageId"] and turn["selectionId"]:
            assert turn["messageId"] == turn["selectionId"], turn


async def _assistant_ids(page: Page) -> list[str]:
    """Assistant message ids whichever attribute the message_ids knob leaves."""
    turns = await turn_vocabulary(page)
    return [t["messageId"] or t["selectionId"] for t in turns if t["role"] == "assistant"]


async def _assert_binding(
    page: Page, archive: Path, *, count_before_send: int, ours: int, prompt: str
) -> None:
    """The reply after the archive's user turn is ours; the turn at the pre-send count is not."""
    anchors, index = await reply_after_archive(page, archive.name)
    assert (anchors, index) == (1, ours)
    assert index != count_before_send
    texts = await assistant_texts(page)
    assert prompt in texts[ours]
    assert prompt not in texts[count_before_send]
    # The user turn that shows our archive shows its chip named exactly with the file name.
    await expect(page.get_by_role("group", name=archive.name, exact=True)).to_be_visible()


async def _open_prefilled(page: Page, sim: Simulator, scenario: str, **knobs: str) -> int:
    """Open a new chat whose earlier exchange (`prefilled_thread`) shows a moment after the
    composer is ready; return the assistant turns a driver counts before that (none)."""
    await page.goto(
        sim.chat_url(scenario=scenario, answer="echo", prefill_delay_ms=PREFILL_DELAY_MS, **knobs)
    )
    await wait_editable(page)
    # What a driver counts once the composer is ready: the new chat looks empty.
    count_before_send = await assistant_turns(page).count()
    assert count_before_send == 0
    # A moment later the earlier exchange shows, still on the new-chat page.
    await expect(assistant_turns(page)).to_have_count(1)
    return count_before_send


async def _assert_same_after_reload(
    page: Page, shell: str, archive: Path, prompt: str, *, ids: list[str], texts: list[str]
) -> None:
    """A reload shows the same two assistant turns, and the second is still bound as ours
    (the count before sending was 0 in both tests that reload)."""
    await page.reload()
    await expect(assistant_turns(page)).to_have_count(2)
    assert await _assistant_ids(page) == ids
    assert await assistant_texts(page) == texts
    await _assert_binding(page, archive, count_before_send=0, ours=1, prompt=prompt)
    await _assert_ordinary_vocabulary(page, shell)


@pytest.mark.parametrize(("shell", "picker"), PREFILL_CASES)
async def test_prefilled_thread_earlier_reply_is_at_the_pre_send_count(
    page: Page, sim: Simulator, tmp_path: Path, shell: str, picker: str
) -> None:
    archive = _archive(tmp_path, "context-job13prefill.tar.zst")
    prompt = "Our question for job 13"
    count_before_send = await _open_prefilled(
        page, sim, "prefilled_thread", shell=shell, picker=picker
    )
    await expect(page.get_by_role("group", name=PREFILL_ARCHIVE, exact=True)).to_be_visible()
    assert urlsplit(page.url).path == "/"
    assert PREFILL_PROMPT in (await assistant_texts(page))[0]
    await _assert_ordinary_vocabulary(page, shell)
    [earlier_id] = await _assistant_ids(page)

    await _send_with_archive(page, shell, archive, prompt)
    await wait_answer_done(page, shell, count=2)
    await expect(page).to_have_url(UUID_PATH)
    texts = await assistant_texts(page)
    assert PREFILL_PROMPT in texts[0] and prompt in texts[1]
    await _assert_binding(page, archive, count_before_send=count_before_send, ours=1, prompt=prompt)
    await _assert_ordinary_vocabulary(page, shell)
    ids = await _assistant_ids(page)
    assert ids[0] == earlier_id and ids[1] != earlier_id

    # The earlier exchange is part of the conversation's stored turns.
    conv = sim.state.conversation(urlsplit(page.url).path.rsplit("/", 1)[1])
    assert [t.role for t in conv.turns] == ["user", "assistant", "user", "assistant"]
    assert [t.message_id for t in conv.assistant_turns()] == ids
    assert [sim.state.uploads[i].name for i in conv.turns[0].attachments] == [PREFILL_ARCHIVE]
    assert [sim.state.uploads[i].name for i in conv.turns[2].attachments] == [archive.name]
    assert [t.text for t in sim.state.user_messages()] == [prompt]

    await _assert_same_after_reload(page, shell, archive, prompt, ids=ids, texts=texts)
    await expect(page.get_by_role("group", name=PREFILL_ARCHIVE, exact=True)).to_be_visible()


async def test_prefilled_thread_shown_with_the_send_is_missed_by_a_count_at_send(
    page: Page, sim: Simulator, tmp_path: Path
) -> None:
    """With a delay longer than the preparation, the earlier exchange appears only with the send:
    a count taken just before clicking Send (as a driver takes its baseline) is 0."""
    archive = _archive(tmp_path, "context-job13fast.tar.zst")
    prompt = "Sent before the thread restored"
    await page.goto(
        sim.chat_url(scenario="prefilled_thread", answer="echo", prefill_delay_ms=60_000)
    )
    await wait_editable(page)
    await attach(page, archive)
    await composer(page, "classic").fill(prompt)
    await expect(send_button(page, "classic")).to_be_enabled()
    count_before_send = await assistant_turns(page).count()
    assert count_before_send == 0
    await send_button(page, "classic").click()
    await wait_answer_done(page, "classic", count=2)
    texts = await assistant_texts(page)
    assert PREFILL_PROMPT in texts[0] and prompt in texts[1]
    await _assert_binding(page, archive, count_before_send=count_before_send, ours=1, prompt=prompt)
    # The page keeps classic turn numbering in document order.
    testids = await page.locator("article[data-testid^=conversation-turn-]").evaluate_all(
        "es => es.map(e => e.dataset.testid)"
    )
    assert testids == [f"conversation-turn-{n}" for n in range(1, 5)]


@pytest.mark.parametrize(("shell", "picker"), EXTRA_CASES)
async def test_extra_assistant_turn_is_at_the_pre_send_count(
    page: Page, sim: Simulator, tmp_path: Path, shell: str, picker: str
) -> None:
    archive = _archive(tmp_path, "context-job13extra.tar.zst")
    prompt = "Our question for job 13"
    await page.goto(
        sim.chat_url(shell=shell, picker=picker, scenario="extra_assistant", answer="echo")
    )
    await wait_editable(page)
    count_before_send = await assistant_turns(page).count()
    assert count_before_send == 0

    await _send_with_archive(page, shell, archive, prompt)
    await wait_answer_done(page, shell, count=2)
    await expect(page).to_have_url(UUID_PATH)
    texts = await assistant_texts(page)
    assert texts[0].strip() == EXTRA_ASSISTANT_TEXT
    assert prompt in texts[1]
    await _assert_binding(page, archive, count_before_send=count_before_send, ours=1, prompt=prompt)
    await _assert_ordinary_vocabulary(page, shell)
    ids = await _assistant_ids(page)
    assert len(set(ids)) == 2

    conv = sim.state.conversation(urlsplit(page.url).path.rsplit("/", 1)[1])
    assert [t.role for t in conv.turns] == ["assistant", "user", "assistant"]
    assert [t.message_id for t in conv.assistant_turns()] == ids
    assert [t.text for t in sim.state.user_messages()] == [prompt]

    await _assert_same_after_reload(page, shell, archive, prompt, ids=ids, texts=texts)


async def test_extra_assistant_on_a_follow_up(page: Page, sim: Simulator, tmp_path: Path) -> None:
    """Every send gets the extra turn, and it follows the message_ids knob like any turn."""
    shell = "redesign"
    first, second = (_archive(tmp_path, f"context-job13{n}.tar.zst") for n in ("a", "b"))
    await page.goto(
        sim.chat_url(
            shell=shell, scenario="extra_assistant", answer="echo", message_ids="selection"
        )
    )
    await wait_editable(page)
    await _send_with_archive(page, shell, first, "first question")
    await wait_answer_done(page, shell, count=2)
    await page.goto(page.url)  # a fresh visit to /c/<id>, like a follow-up job
    await wait_editable(page)
    count_before_send = await assistant_turns(page).count()
    assert count_before_send == 2

    await _send_with_archive(page, shell, second, "second question")
    await wait_answer_done(page, shell, count=4)
    texts = await assistant_texts(page)
    assert [texts[0].strip(), texts[2].strip()] == [EXTRA_ASSISTANT_TEXT] * 2
    await _assert_binding(
        page, second, count_before_send=count_before_send, ours=3, prompt="second question"
    )
    assert await reply_after_archive(page, first.name) == (1, 1)
    await _assert_ordinary_vocabulary(page, shell, message_ids="selection")
    # Redesign: the extra turn is an exchange of its own, before the exchange of the user turn.
    await expect(page.locator("[data-turn-key]")).to_have_count(4)


async def test_prefilled_thread_and_extra_assistant_together(
    page: Page, sim: Simulator, tmp_path: Path
) -> None:
    archive = _archive(tmp_path, "context-job13both.tar.zst")
    prompt = "Both at once"
    count_before_send = await _open_prefilled(page, sim, "prefilled_thread,extra_assistant")
    await _send_with_archive(page, "classic", archive, prompt)
    await wait_answer_done(page, "classic", count=3)
    texts = await assistant_texts(page)
    assert PREFILL_PROMPT in texts[0]
    assert texts[1].strip() == EXTRA_ASSISTANT_TEXT
    assert prompt in texts[2]
    await _assert_binding(page, archive, count_before_send=count_before_send, ours=2, prompt=prompt)
    await page.reload()
    await expect(assistant_turns(page)).to_have_count(3)
    assert await assistant_texts(page) == texts
