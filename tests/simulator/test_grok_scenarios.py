"""Every scenario flag that applies to the Grok look-alike, driven in real Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, expect

from oraculum.simulator import Simulator
from oraculum.simulator.actions import EXTRA_ASSISTANT_TEXT, PREFILL_ARCHIVE, PREFILL_PROMPT
from oraculum.simulator.answers import END_MARKER
from oraculum.simulator.grok import GROK_GENERATION_ERROR_TEXT

from . import grok_helpers as grok
from .helpers import eventually

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]


async def test_login_expired_shows_the_signed_out_page(
    grok_page: Page, grok_sim: Simulator
) -> None:
    page = grok_page
    await page.goto(grok_sim.chat_url())
    await expect(page.get_by_role("link", name="Sign in", exact=True)).to_have_count(0)
    await page.goto(grok_sim.chat_url(scenario="login_expired"))
    await expect(page.get_by_role("link", name="Sign in", exact=True)).to_be_visible()
    assert grok_sim.state.events_of("session_revoked")
    assert grok_sim.state.sessions == {}


async def test_conversation_url_signed_out_goes_to_sign_in(
    browser: Browser, grok_sim: Simulator
) -> None:
    conv_id = grok_sim.seed_conversation(["q", "a"])
    context = await browser.new_context()
    page = await context.new_page()
    try:
        await page.goto(f"{grok_sim.url}/chat/{conv_id}")
        assert "/sign-in" in page.url
        await page.get_by_role("button", name="Continue", exact=True).click()
        await expect(page).to_have_url(f"{grok_sim.url}/chat/{conv_id}")
        await expect(grok.assistant_rows(page)).to_have_count(1)
    finally:
        await context.close()


async def test_challenge_then_person_verifies(grok_page: Page, grok_sim: Simulator) -> None:
    page = grok_page
    response = await page.goto(grok_sim.chat_url(scenario="challenge", challenge_loads=1))
    assert response is not None and response.status == 403
    await expect(page).to_have_title("Just a moment...")
    await expect(page.get_by_role("heading", name="grok.com")).to_be_visible()
    await page.get_by_role("checkbox", name="Verify you are human").check()
    await expect(page.get_by_text("Waiting for grok.com to respond")).to_be_visible()
    await expect(page.get_by_role("button", name="Attach", exact=True)).to_be_visible()


async def test_outage_clears_on_reload(grok_page: Page, grok_sim: Simulator) -> None:
    page = grok_page
    response = await page.goto(grok_sim.chat_url(scenario="outage"))
    assert response is not None and response.status == 500
    await expect(page.get_by_role("heading", name="Something went wrong")).to_be_visible()
    await page.get_by_role("button", name="Try again").click()
    await expect(page.get_by_role("button", name="Attach", exact=True)).to_be_visible()


async def test_rate_limit_refuses_send(grok_page: Page, grok_sim: Simulator) -> None:
    page = grok_page
    await page.goto(grok_sim.chat_url(scenario="rate_limit"))
    await grok.send(page, "hello")
    await expect(page.get_by_role("alert")).to_contain_text("Too many requests")
    assert "/c/" not in page.url
    await expect(grok.composer(page)).to_have_text("hello")
    assert grok_sim.state.user_messages() == []


async def test_upload_failure(grok_page: Page, grok_sim: Simulator, tmp_path: Path) -> None:
    page = grok_page
    archive = tmp_path / "context-bad.tar.gz"
    grok.make_tar_gz(archive, {"a": b"a"})
    await page.goto(grok_sim.chat_url(scenario="upload_fail"))
    await grok.wait_editable(page)
    await grok.composer(page).fill("with file")
    await page.get_by_role("button", name="Attach", exact=True).click()
    await page.locator("input[type=file]").set_input_files(str(archive))
    chip = page.get_by_role("group", name=archive.name, exact=True)
    await expect(chip).to_have_attribute("data-state", "error")
    await expect(chip).to_contain_text("Upload failed")
    await expect(page.get_by_role("alert")).to_contain_text(f"Could not upload {archive.name}")
    await expect(grok.submit(page)).to_be_disabled()
    assert grok_sim.state.uploads == {}
    await page.get_by_role("button", name=f"Remove {archive.name}").click()
    await expect(grok.submit(page)).to_be_enabled()


async def test_generation_error_then_retry(grok_page: Page, grok_sim: Simulator) -> None:
    page = grok_page
    await page.goto(grok_sim.chat_url(scenario="generation_error", answer="echo"))
    await grok.send(page, "please fail once")
    row = grok.assistant_rows(page)
    await expect(row).to_contain_text(GROK_GENERATION_ERROR_TEXT)
    await expect(grok.stop(page)).to_have_count(0)
    first_id = await row.get_attribute("id")
    await page.reload()  # the failure is committed too
    await expect(grok.assistant_rows(page)).to_contain_text(GROK_GENERATION_ERROR_TEXT)
    await page.get_by_role("button", name="Retry", exact=True).click()
    await grok.wait_answer_done(page)
    await expect(grok.assistant_rows(page)).to_contain_text("please fail once")
    await expect(grok.assistant_rows(page)).not_to_contain_text(GROK_GENERATION_ERROR_TEXT)
    assert await grok.assistant_rows(page).get_attribute("id") != first_id


async def test_slow_answer_keeps_the_stop_control(grok_page: Page, grok_sim: Simulator) -> None:
    page = grok_page
    await page.goto(grok_sim.chat_url(think_ms=1500, token_ms=5, answer="echo"))
    await grok.send(page, "think first")
    await expect(grok.stop(page)).to_be_visible()
    await expect(page.locator(".thinking-container")).to_contain_text("Thinking")
    await page.wait_for_timeout(700)
    # Still thinking: no text yet, Stop still there.
    await expect(grok.stop(page)).to_be_visible()
    assert "think first" not in await grok.reply_text(grok.assistant_rows(page))
    await grok.wait_answer_done(page)
    assert "think first" in await grok.reply_text(grok.assistant_rows(page))


async def test_stale_stop_control(grok_page: Page, grok_sim: Simulator) -> None:
    page = grok_page
    await page.goto(grok_sim.chat_url(scenario="stale_stop", answer="echo"))
    await grok.send(page, "stale")
    await expect(grok.assistant_rows(page)).to_contain_text("stale")
    conv_id = page.url.rsplit("/", 1)[1]
    await eventually(lambda: grok_sim.state.conversation(conv_id).turns[1].status, "complete")
    await page.wait_for_timeout(200)
    await expect(grok.stop(page)).to_be_visible()
    await page.reload()
    await expect(grok.assistant_rows(page)).to_contain_text("stale")
    await expect(grok.stop(page)).to_have_count(0)


async def test_hidden_tab_freezes_stream_reload_shows_full(
    grok_page: Page, grok_sim: Simulator
) -> None:
    page = grok_page
    await page.goto(grok_sim.chat_url(scenario="hidden_tab", hidden_after_chars=30))
    await grok.send(page, "a long enough answer")
    await page.wait_for_function("document.hidden === true")
    await expect(grok.stop(page)).to_have_count(0)
    streamed = await grok.reply_text(grok.assistant_rows(page))
    conv = grok_sim.state.conversation(page.url.rsplit("/", 1)[1])
    assert conv.turns[1].status == "complete"
    await page.reload()
    reloaded = await grok.reply_text(grok.assistant_rows(page))
    assert len(streamed) < len(reloaded)
    assert "References" in reloaded and "References" not in streamed


async def test_navigation_away_mid_answer(grok_page: Page, grok_sim: Simulator) -> None:
    page = grok_page
    await page.goto(grok_sim.chat_url(scenario="navigate_away", token_ms=10))
    await grok.send(page, "do not lose me")
    await expect(page.get_by_role("group", name="context-other.tar.zst")).to_be_visible()
    [own] = [c for c in grok_sim.state.conversations.values() if not c.decoy]
    [decoy] = [c for c in grok_sim.state.conversations.values() if c.decoy]
    assert page.url.endswith(f"/c/{decoy.id}")
    await page.goto(grok_sim.conversation_url(own.id))
    await grok.wait_answer_done(page)
    await expect(grok.assistant_rows(page)).to_contain_text("do not lose me")


async def test_extra_assistant_before_the_user_turn(grok_page: Page, grok_sim: Simulator) -> None:
    page = grok_page
    await page.goto(grok_sim.chat_url(scenario="extra_assistant", answer="echo"))
    await grok.send(page, "ours")
    await grok.wait_answer_done(page, count=2)
    rows = grok.assistant_rows(page)
    await expect(rows.nth(0)).to_contain_text(EXTRA_ASSISTANT_TEXT)
    await expect(rows.nth(1)).to_contain_text("ours")
    # Document order: extra reply, our user turn, our reply.
    order = await page.locator(".group[id^=response-]").evaluate_all(
        "es => es.map(e => e.querySelector('[data-testid=\"user-message\"]') ? 'user' : 'bot')"
    )
    assert order == ["bot", "user", "bot"]
    await page.reload()
    await expect(grok.assistant_rows(page)).to_have_count(2)


async def test_prefilled_thread_shows_an_earlier_exchange(
    grok_page: Page, grok_sim: Simulator, tmp_path: Path
) -> None:
    page = grok_page
    archive = tmp_path / "context-ours.tar.gz"
    grok.make_tar_gz(archive, {"ours.txt": b"ours"})
    await page.goto(grok_sim.chat_url(scenario="prefilled_thread", answer="echo"))
    await grok.wait_editable(page)
    await expect(grok.user_rows(page)).to_have_count(1)  # prefill_delay_ms later
    await expect(grok.user_rows(page)).to_contain_text(PREFILL_PROMPT)
    await expect(grok.user_rows(page)).to_contain_text(PREFILL_ARCHIVE)
    assert "/c/" not in page.url  # still the new chat
    await grok.attach(page, archive)
    await grok.send(page, "ours")
    await grok.wait_answer_done(page, count=2)
    await expect(grok.user_rows(page).nth(1)).to_contain_text(archive.name)
    await page.reload()
    await expect(grok.user_rows(page)).to_have_count(2)
    await expect(grok.assistant_rows(page)).to_have_count(2)


async def test_grok_mid_answer_pause_shows_partial_text_without_stop_then_the_rest(
    grok_page: Page, grok_sim: Simulator
) -> None:
    """pause_ms on Grok: part of the reply, no "Stop model response", no "Thinking", no action
    buttons; then Stop returns and the rest streams, ending with the marker."""
    page = grok_page
    paused = len(grok_sim.state.events_of("page:answer_paused"))
    await page.goto(grok_sim.chat_url(pause_ms=3000, pause_at_chars=80, token_ms=50))
    await grok.send(page, "pause in the middle")
    await eventually(lambda: len(grok_sim.state.events_of("page:answer_paused")), paused + 1)
    row = grok.assistant_rows(page)
    await expect(row).to_contain_text("Upload receipt")
    await expect(grok.stop(page)).to_have_count(0)
    await expect(page.locator(".shimmer")).to_have_count(0)
    await expect(row.get_by_role("button", name="Regenerate")).to_have_count(0)
    assert END_MARKER not in await grok.reply_text(row)
    await expect(grok.stop(page)).to_be_visible(timeout=5000)
    await grok.wait_answer_done(page)
    assert (await grok.reply_text(row)).endswith(END_MARKER)
