"""Issue 37 §5-6: what a turn holds besides the answer, in real Chromium by role and name:
two candidate answers to compare (`comparison_answer`) and app chrome (`turn_chrome`)."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from oraculum.simulator import Simulator
from oraculum.simulator.answers import ALTERNATIVE_HEADING, FEEDBACK_QUESTION

from .helpers import SHELLS, assistant_turns, eventually, send, stop_button

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]


@pytest.mark.parametrize("shell", SHELLS)
async def test_comparison_answer_shows_two_candidates_and_records_a_preference(
    page: Page, sim: Simulator, shell: str
) -> None:
    await page.goto(sim.chat_url(shell=shell, scenario="comparison_answer", comparison_lag_ms=1500))
    await send(page, shell, "Compare, please")
    await expect(page.get_by_text("Which response do you prefer?")).to_be_visible()
    candidates = assistant_turns(page)
    await expect(candidates).to_have_count(2)
    # The second candidate is still writing after the first is whole: Stop stays meanwhile.
    await expect(candidates.nth(0)).to_contain_text("Upload receipt")
    await expect(candidates.nth(1)).to_have_text("Writing")
    await expect(stop_button(page, shell)).to_be_visible()
    await expect(candidates.nth(1)).to_contain_text(ALTERNATIVE_HEADING)
    await expect(stop_button(page, shell)).to_have_count(0)
    for label in ("Response 1", "Response 2"):
        await expect(page.get_by_text(label, exact=True)).to_be_visible()
    ids = {await c.get_attribute("data-message-id") for c in await candidates.all()}
    assert len(ids) == 2 and None not in ids
    # Shown again from storage after a reload, and a preference click is recorded.
    await page.reload()
    await expect(candidates.nth(1)).to_contain_text(ALTERNATIVE_HEADING)
    assert sim.state.events_of("page:preference_chosen") == []
    await page.get_by_role("button", name="I prefer this response").nth(1).click()
    await eventually(
        lambda: [e["candidate"] for e in sim.state.events_of("page:preference_chosen")], [2]
    )
    # A later reply in the conversation is a single answer.
    await send(page, shell, "And now?")
    await expect(candidates).to_have_count(3)
    await expect(stop_button(page, shell)).to_have_count(0)
    await expect(page.get_by_role("button", name="I prefer this response")).to_have_count(2)


@pytest.mark.parametrize("shell", SHELLS)
async def test_turn_chrome_sits_inside_the_reply(page: Page, sim: Simulator, shell: str) -> None:
    await page.goto(sim.chat_url(shell=shell, scenario="turn_chrome"))
    await send(page, shell, "Hello")
    reply = assistant_turns(page)
    await expect(stop_button(page, shell)).to_have_count(0)
    for text in ("Thought for 25s", "Memory updated", FEEDBACK_QUESTION, "Upload receipt"):
        await expect(reply).to_contain_text(text)
    await expect(reply.get_by_role("button", name="Manage memories")).to_be_visible()
    await expect(reply.get_by_role("button", name="Sources")).to_be_visible()
    await expect(reply.get_by_role("button", name="Thumbs up")).to_be_visible()
