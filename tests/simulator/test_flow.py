"""A person's full exchange on both shells: upload, send, stream, commit, reload, follow up."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from oraculum.simulator import Simulator

from .helpers import (
    SHELLS,
    assistant_turns,
    attach,
    composer,
    make_tar_zst,
    send,
    send_button,
    stop_button,
    wait_answer_done,
    wait_editable,
)

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]

UUID_PATH = re.compile(r"/c/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


@pytest.mark.parametrize("shell", SHELLS)
async def test_upload_send_stream_commit_reload(
    page: Page, sim: Simulator, tmp_path: Path, shell: str
) -> None:
    sim.set_scenario(token_ms=15)
    archive = tmp_path / "context-job1.tar.zst"
    sha = make_tar_zst(archive, {"src/app.py": b"print('hi')\n", "README.md": b"# Readme\n"})
    await page.goto(sim.chat_url(shell=shell))
    footer = page.get_by_text("ChatGPT can make mistakes. Check important info.")
    await expect(footer).to_be_visible()
    await wait_editable(page)
    await attach(page, archive)
    await composer(page, shell).fill("Review this project\nand list the files")
    await send_button(page, shell).click()

    # While generating: the stop control (by name and by test id), the URL moved by pushState.
    await expect(stop_button(page, shell)).to_be_visible()
    await expect(page.locator('[data-testid="stop-button"]')).to_have_count(1)
    await expect(page).to_have_url(UUID_PATH)
    await wait_answer_done(page, shell)
    await expect(stop_button(page, shell)).to_have_count(0)
    await expect(page.get_by_role("button", name="Copy", exact=True)).to_be_visible()

    answer = assistant_turns(page)
    text = await answer.inner_text()
    assert sha in text
    assert "src/app.py" in text and "README.md" in text
    assert "Review this project\nand list the files" in text
    message_id = await answer.get_attribute("data-message-id")
    assert message_id
    # The "ChatGPT said:" heading's wrapper holds the message id as a descendant (facts §2.1).
    heading = page.get_by_role("heading", name="ChatGPT said:")
    await expect(heading).to_have_count(1)
    wrapper_ids = await heading.evaluate(
        "h => [...h.nextElementSibling.querySelectorAll('[data-message-id]')]"
        ".map(e => e.dataset.messageId)"
    )
    assert wrapper_ids == [message_id]
    await expect(page.get_by_text(re.compile(r"^Thought for \d+s$"))).to_be_visible()
    # Rich rendering: heading, table, list, leaf code block in a presentation <pre>, links.
    assert await answer.locator("h3").count() == 1
    assert await answer.locator("table").count() == 1
    assert await answer.locator("ul > li").count() == 2
    assert await answer.locator("pre pre > code.language-json").count() == 1
    hrefs = await answer.locator("a").evaluate_all("as => as.map(a => a.href)")
    assert any("?sig=" in h for h in hrefs)
    assert any(h.startswith("https://docs.python") for h in hrefs)

    if shell == "redesign":
        selection_id = await page.locator("[data-chatgpt-selection-message-id]").last.get_attribute(
            "data-chatgpt-selection-message-id"
        )
        assert selection_id == message_id
        await expect(page.locator("[data-turn-key]")).to_have_count(1)
        await expect(page.locator('h4[data-conversation-role="assistant"]')).to_have_count(1)

    conv_id = page.url.rsplit("/", 1)[1]
    conv = sim.state.conversation(conv_id)
    assert conv.turns[1].status == "complete"
    [user] = sim.state.user_messages()
    assert user.text == "Review this project\nand list the files"
    [upload] = [sim.state.uploads[i] for i in user.attachments]
    assert upload.sha256 == sha and upload.name == archive.name

    await page.reload()
    await expect(assistant_turns(page)).to_have_count(1)
    assert await assistant_turns(page).inner_text() == text
    # After a re-render from persistence the action is "Copy response" (facts §3.5).
    await expect(page.get_by_role("button", name="Copy response", exact=True)).to_be_visible()
    await expect(page.get_by_role("button", name="Copy", exact=True)).to_have_count(0)


@pytest.mark.parametrize("shell", SHELLS)
async def test_follow_up_appends_an_exchange(page: Page, sim: Simulator, shell: str) -> None:
    await page.goto(sim.chat_url(shell=shell, answer="echo"))
    await send(page, shell, "first question")
    await wait_answer_done(page, shell)
    url = page.url
    await page.goto(url)  # a fresh visit to /c/<id>, like a follow-up job
    await send(page, shell, "second question")
    await wait_answer_done(page, shell, count=2)
    assert page.url == url
    await page.reload()
    await expect(assistant_turns(page)).to_have_count(2)
    await expect(assistant_turns(page).nth(1)).to_contain_text("second question")
    conv = sim.state.conversation(url.rsplit("/", 1)[1])
    assert [t.text for t in conv.user_turns()] == ["first question", "second question"]
    if shell == "redesign":
        await expect(page.locator("[data-turn-key]")).to_have_count(2)


async def test_composer_hydrates_from_non_editable_fallback(page: Page, sim: Simulator) -> None:
    await page.goto(sim.chat_url(hydrate_ms=700))
    fallback = page.locator("#prompt-textarea")
    assert await fallback.evaluate("e => e.isContentEditable") is False
    await expect(composer(page, "classic")).not_to_be_editable()
    await wait_editable(page)
    await expect(composer(page, "classic")).to_be_editable()
    await expect(send_button(page, "classic")).to_be_disabled()
    await composer(page, "classic").fill("x")
    await expect(send_button(page, "classic")).to_be_enabled()


async def test_send_waits_for_upload_progress(page: Page, sim: Simulator, tmp_path: Path) -> None:
    archive = tmp_path / "context-slow.tar.zst"
    make_tar_zst(archive, {"a.txt": b"a"})
    await page.goto(sim.chat_url(upload_ms=1500))
    await wait_editable(page)
    await composer(page, "classic").fill("with a file")
    await page.get_by_role("button", name="Add files and more").click()
    await page.locator("input[type=file]").set_input_files(str(archive))
    await expect(page.get_by_role("progressbar", name=f"Uploading {archive.name}")).to_be_visible()
    await expect(send_button(page, "classic")).to_be_disabled()
    await expect(page.get_by_role("progressbar")).to_have_count(0, timeout=5000)
    await expect(send_button(page, "classic")).to_be_enabled()


async def test_tools_menu_and_deep_research_pill(page: Page, sim: Simulator) -> None:
    await page.goto(sim.chat_url())
    await wait_editable(page)
    await composer(page, "classic").fill("Research this")
    plus = page.get_by_role("button", name="Add files and more")
    await expect(plus).to_have_attribute("aria-expanded", "false")
    await plus.click()
    await expect(plus).to_have_attribute("aria-expanded", "true")
    for name in (
        "Add photos & filesUpload from computerAdd from library",
        "Web searchFind real-time news and info",
        "Deep researchGet a detailed report",
        "SketchDraw and attach an image",
    ):
        await expect(page.get_by_text(name, exact=True)).to_have_count(1)
    await page.get_by_text("Deep researchGet a detailed report").click()
    pill = page.locator("#prompt-textarea [data-inline-selection-pill]")
    await expect(pill).to_have_text("Deep research")
    text = await page.locator("#prompt-textarea").inner_text()
    assert text.index("Research this") < text.index("Deep research")
    await send_button(page, "classic").click()
    await expect(assistant_turns(page)).to_have_count(1)
    [user] = sim.state.user_messages()
    assert user.tool == "deep_research" and user.text == "Research this"


async def test_user_stops_the_answer(page: Page, sim: Simulator) -> None:
    await page.goto(sim.chat_url(token_ms=60))
    await send(page, "classic", "long answer please")
    answer = assistant_turns(page)
    await expect(answer).not_to_have_text("")
    await stop_button(page, "classic").click()
    await expect(page.locator('[data-testid="stop-button"]')).to_have_count(0)
    stopped = await answer.inner_text()
    conv = sim.state.conversation(page.url.rsplit("/", 1)[1])
    assert conv.turns[1].status == "stopped"
    await page.reload()
    assert (await assistant_turns(page).inner_text()).strip() == stopped.strip()


async def test_seeded_conversation_renders_for_capture(page: Page, sim: Simulator) -> None:
    conv_id = sim.seed_conversation(
        [
            {"text": "Earlier question", "attachments": ["context-seed.tar.zst"]},
            {"text": "# Old\n\nOLD_TURN", "message_id": "old"},
            "Later question",
            {"answer": "markdown", "message_id": "new", "reasoning_label": "Worked for 1m 7s"},
        ],
        shell="redesign",
    )
    await page.goto(sim.conversation_url(conv_id))
    await expect(assistant_turns(page)).to_have_count(2)
    ids = await assistant_turns(page).evaluate_all("es => es.map(e => e.dataset.messageId)")
    assert ids == ["old", "new"]
    await expect(page.get_by_text("Worked for 1m 7s")).to_be_visible()
    await expect(page.get_by_role("button", name="Copy response", exact=True)).to_have_count(2)
    await expect(page.get_by_role("group", name="context-seed.tar.zst")).to_be_visible()
    assert sim.state.user_messages() == []  # seeded turns were not "received"


async def test_two_browsers_two_conversations_at_once(
    page: Page, sim: Simulator, browser, tmp_path: Path
) -> None:
    other = await browser.new_context()
    await other.add_cookies([sim.session_cookie("second@example.com")])
    page2 = await other.new_page()
    try:
        await page.goto(sim.chat_url(answer="echo"))
        await page2.goto(sim.chat_url(answer="echo", shell="redesign"))
        await send(page, "classic", "from browser one")
        await send(page2, "redesign", "from browser two")
        await wait_answer_done(page, "classic")
        await wait_answer_done(page2, "redesign")
        assert page.url != page2.url
        await expect(assistant_turns(page)).to_contain_text("from browser one")
        await expect(assistant_turns(page2)).to_contain_text("from browser two")
    finally:
        await other.close()
