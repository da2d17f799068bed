"""Every scenario knob, driven by a person's actions in real Chromium."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, expect

from oraculum.simulator import Simulator
from oraculum.simulator.answers import END_MARKER

from . import helpers as ui

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]


async def _me(page: Page) -> tuple[int, dict]:
    result = await page.evaluate(
        """async () => {
            const r = await fetch('/backend-api/me', {credentials: 'include', cache: 'no-store'});
            return [r.status, await r.text()];
        }"""
    )
    return result[0], json.loads(result[1])


async def test_login_required_then_sign_in(browser: Browser, sim: Simulator) -> None:
    context = await browser.new_context()  # no session cookie
    page = await context.new_page()
    try:
        await page.goto(sim.chat_url())
        assert (await _me(page))[0] == 401
        await expect(page.get_by_role("link", name="Log in")).to_be_visible()
        await expect(page.get_by_role("button", name="Add files and more")).to_have_count(0)
        await page.get_by_role("link", name="Log in").click()
        await expect(page).to_have_url(sim.sign_in_url)
        await page.get_by_label("Email address").fill("person@example.com")
        await page.get_by_label("Password").fill("anything")
        await page.get_by_role("button", name="Continue", exact=True).click()
        await expect(page.get_by_role("button", name="Add files and more")).to_be_visible()
        status, body = await _me(page)
        assert status == 200 and body["email"] == "person@example.com" and body["id"]
        await expect(page.get_by_role("link", name="Log in")).to_have_count(0)
    finally:
        await context.close()


async def test_conversation_url_redirects_to_login_when_signed_out(
    browser: Browser, sim: Simulator
) -> None:
    conv_id = sim.seed_conversation(["q", "a"])
    context = await browser.new_context()
    page = await context.new_page()
    try:
        await page.goto(sim.conversation_url(conv_id))
        assert "/auth/login" in page.url
        await page.get_by_role("button", name="Continue", exact=True).click()
        await expect(page).to_have_url(sim.conversation_url(conv_id))
        await expect(ui.assistant_turns(page)).to_have_count(1)
    finally:
        await context.close()


async def test_login_expired_revokes_the_session(page: Page, sim: Simulator) -> None:
    await page.goto(sim.chat_url())
    assert (await _me(page))[0] == 200
    await page.goto(sim.chat_url(scenario="login_expired"))
    assert (await _me(page))[0] == 401
    await expect(page.get_by_role("link", name="Log in")).to_be_visible()


async def test_challenge_then_person_verifies(page: Page, sim: Simulator) -> None:
    response = await page.goto(sim.chat_url(scenario="challenge", challenge_loads=1))
    assert response is not None and response.status == 403
    await expect(page).to_have_title("Just a moment...")
    await expect(page.get_by_text("Verify you are human by completing")).to_be_visible()
    await page.get_by_role("checkbox", name="Verify you are human").check()
    await expect(page.get_by_text("Verification successful")).to_be_visible()
    await expect(page.get_by_role("button", name="Add files and more")).to_be_visible()


async def test_challenge_every_load(page: Page, sim: Simulator) -> None:
    url = sim.chat_url(scenario="challenge")
    for _ in range(2):
        await page.goto(url)
        await expect(page.get_by_text("Just a moment...")).to_be_visible()


async def test_transient_outage_clears_on_reload(page: Page, sim: Simulator) -> None:
    response = await page.goto(sim.chat_url(scenario="outage"))
    assert response is not None and response.status == 500
    await expect(page.get_by_role("heading", name="Something went wrong")).to_be_visible()
    await page.get_by_role("button", name="Try again").click()
    await expect(page.get_by_role("button", name="Add files and more")).to_be_visible()


async def test_rate_limit_refuses_send(page: Page, sim: Simulator) -> None:
    await page.goto(sim.chat_url(scenario="rate_limit"))
    await ui.send(page, "classic", "hello")
    await expect(page.get_by_role("alert")).to_contain_text("Too many requests")
    await expect(page.get_by_role("alert")).to_contain_text("rate limit")
    assert "/c/" not in page.url
    await expect(ui.composer(page, "classic")).to_have_text("hello")
    assert sim.state.user_messages() == []


async def test_upload_failure(page: Page, sim: Simulator, tmp_path: Path) -> None:
    archive = tmp_path / "context-bad.tar.zst"
    ui.make_tar_zst(archive, {"a": b"a"})
    await page.goto(sim.chat_url(scenario="upload_fail"))
    await ui.wait_editable(page)
    await ui.composer(page, "classic").fill("with file")
    await page.get_by_role("button", name="Add files and more").click()
    await page.locator("input[type=file]").set_input_files(str(archive))
    await expect(page.get_by_text("Failed upload")).to_be_visible()
    await expect(page.get_by_role("alert")).to_contain_text("Could not upload context-bad.tar.zst")
    await expect(ui.send_button(page, "classic")).to_be_disabled()
    assert sim.state.uploads == {}
    await page.get_by_role("button", name="Remove context-bad.tar.zst").click()
    await expect(ui.send_button(page, "classic")).to_be_enabled()


async def test_generation_error_then_retry(page: Page, sim: Simulator) -> None:
    await page.goto(sim.chat_url(scenario="generation_error", answer="echo"))
    await ui.send(page, "classic", "please fail once")
    await expect(
        page.get_by_text("Something went wrong while generating the response.")
    ).to_be_visible()
    retry = page.get_by_role("button", name="Retry")
    await expect(retry).to_be_visible()
    await expect(page.locator('[data-testid="stop-button"]')).to_have_count(0)
    first_id = await ui.assistant_turns(page).get_attribute("data-message-id")
    await page.reload()  # the failure is committed too
    await expect(page.get_by_role("button", name="Retry")).to_be_visible()
    await page.get_by_role("button", name="Retry").click()
    await ui.wait_answer_done(page, "classic")
    await expect(ui.assistant_turns(page)).to_contain_text("please fail once")
    assert await ui.assistant_turns(page).get_attribute("data-message-id") != first_id
    await expect(page.get_by_role("button", name="Retry")).to_have_count(0)


async def test_stale_stop_control(page: Page, sim: Simulator) -> None:
    await page.goto(sim.chat_url(scenario="stale_stop", answer="echo"))
    await ui.send(page, "classic", "stale")
    conv_id = await page.wait_for_function("() => window.__oraculumSimulator.conversationId")
    conv_id = await conv_id.json_value()
    await page.wait_for_function(
        "() => document.querySelector('[data-message-author-role=assistant]')"
        "?.innerText.includes('stale')"
    )
    await ui.eventually(lambda: sim.state.conversation(conv_id).turns[1].status, "complete")
    await page.wait_for_timeout(200)  # the page has had time to hear "done"
    await expect(ui.stop_button(page, "classic")).to_be_visible()  # still there, stream is over
    await page.reload()
    await expect(ui.assistant_turns(page)).to_contain_text("stale")
    await expect(page.locator('[data-testid="stop-button"]')).to_have_count(0)


async def test_hidden_tab_freezes_stream_reload_shows_full(page: Page, sim: Simulator) -> None:
    await page.goto(sim.chat_url(scenario="hidden_tab", hidden_after_chars=30))
    await ui.send(page, "classic", "a long enough answer")
    # The page turns hidden once it has shown the trigger point; under load that frame can come
    # late, so wait for it rather than sampling once.
    await page.wait_for_function("document.hidden === true")
    await expect(page.locator('[data-testid="stop-button"]')).to_have_count(0)
    assert await page.evaluate("document.hidden") is True
    streamed = await ui.assistant_turns(page).inner_text()
    conv = sim.state.conversation(page.url.rsplit("/", 1)[1])
    assert conv.turns[1].status == "complete"
    await page.reload()
    reloaded = await ui.assistant_turns(page).inner_text()
    assert len(streamed.strip()) < len(reloaded.strip())
    assert "Upload receipt" in reloaded and "References" in reloaded
    assert "References" not in streamed


async def test_navigation_away_mid_answer(page: Page, sim: Simulator) -> None:
    await page.goto(sim.chat_url(scenario="navigate_away", token_ms=10))
    await ui.send(page, "classic", "do not lose me")
    # Locators survive the navigation; the other conversation's user turn shows its archive.
    await expect(page.get_by_role("group", name="context-other.tar.zst")).to_be_visible()
    [own] = [c for c in sim.state.conversations.values() if not c.decoy]
    [decoy] = [c for c in sim.state.conversations.values() if c.decoy]
    assert page.url.endswith(f"/c/{decoy.id}")
    await page.goto(sim.conversation_url(own.id))
    # The server kept generating while the tab was elsewhere; the answer completes here.
    await ui.wait_answer_done(page, "classic")
    await expect(ui.assistant_turns(page)).to_contain_text("do not lose me")


@pytest.mark.parametrize("shell", ["classic", "redesign"])
async def test_mid_answer_pause_shows_partial_text_without_stop_then_the_rest(
    page: Page, sim: Simulator, shell: str
) -> None:
    """pause_ms: part of the answer on the page, no stop control, no indicator, no action bar;
    then Stop returns and the rest streams, ending with the marker."""
    paused = len(sim.state.events_of("page:answer_paused"))
    await page.goto(sim.chat_url(shell=shell, pause_ms=3000, pause_at_chars=80, token_ms=50))
    await ui.send(page, shell, "pause in the middle")
    await ui.eventually(lambda: len(sim.state.events_of("page:answer_paused")), paused + 1)
    turn = ui.assistant_turns(page)
    await expect(turn).to_contain_text("Upload receipt")
    await expect(page.locator('[data-testid="stop-button"]')).to_have_count(0)
    await expect(page.locator(".thinking")).to_have_count(0)
    await expect(page.get_by_role("group", name="Response actions")).to_have_count(0)
    assert END_MARKER not in await turn.inner_text()
    await expect(ui.stop_button(page, shell)).to_be_visible(timeout=5000)
    await ui.wait_answer_done(page, shell)
    await expect(turn).to_contain_text(END_MARKER)
    assert len(sim.state.events_of("page:answer_resumed")) >= 1


async def test_restored_draft(page: Page, sim: Simulator) -> None:
    await page.goto(sim.chat_url(draft="an old unsent draft"))
    await ui.wait_editable(page)
    await expect(ui.composer(page, "classic")).to_have_text("an old unsent draft")
    await expect(ui.send_button(page, "classic")).to_be_enabled()
    # A person replaces it (fill selects all first) and only the new prompt is sent.
    await ui.composer(page, "classic").fill("the real prompt")
    await ui.send_button(page, "classic").click()
    await expect(ui.assistant_turns(page)).to_have_count(1)
    assert [t.text for t in sim.state.user_messages()] == ["the real prompt"]


async def test_tricky_words_are_ordinary_content(page: Page, sim: Simulator) -> None:
    # Earlier turns carry the words too.
    conv_id = sim.seed_conversation(
        ["Why did Cloudflare say Just a moment?", {"answer": "tricky"}], answer="tricky"
    )
    await page.goto(sim.conversation_url(conv_id))
    await ui.send(page, "classic", "and the rate limit?")
    await ui.wait_answer_done(page, "classic", count=2)
    text = await page.locator("body").inner_text()
    for word in ("Cloudflare", "rate limit", "Something went wrong", "Too many requests"):
        assert word in text
    await expect(page.get_by_role("alert")).to_have_count(0)
    await expect(page.get_by_role("button", name="Retry")).to_have_count(0)
