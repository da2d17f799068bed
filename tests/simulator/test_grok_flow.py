"""The Grok look-alike (facts §5) in real Chromium: sign-in, Heavy, upload, stream, follow-up."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, expect

from oraculum.simulator import Simulator

from .grok_helpers import (
    ASSISTANT_ACTIONS,
    HEAVY,
    THOUGHT,
    assistant_rows,
    attach,
    composer,
    make_tar_gz,
    model_select,
    pick_model,
    reply_text,
    send,
    stop,
    submit,
    user_rows,
    wait_answer_done,
    wait_editable,
)

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]

UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
CONVERSATION_PATH = re.compile(rf"/c/{UUID}$")


async def test_signed_out_page_offers_sign_in_and_no_heavy(
    browser: Browser, grok_sim: Simulator
) -> None:
    context = await browser.new_context()  # no sso cookie
    page = await context.new_page()
    try:
        await page.goto(grok_sim.chat_url())
        await expect(page).to_have_title("Grok")
        sign_in = page.get_by_role("link", name="Sign in", exact=True)
        await expect(sign_in).to_be_visible()
        # Anonymous grok.com still shows its composer; only the account is missing.
        await wait_editable(page)
        await expect(composer(page)).to_be_visible()
        await model_select(page).click()
        await expect(page.get_by_role("menuitemradio", name=HEAVY)).to_be_disabled()
        await expect(page.get_by_role("menuitemradio", name=HEAVY, disabled=False)).to_have_count(0)
        await page.get_by_role("menuitemradio", name=HEAVY).click(force=True)
        await expect(model_select(page)).not_to_contain_text("Heavy")
        await page.keyboard.press("Escape")
        assert grok_sim.state.selection.effort == "auto"

        await sign_in.click()
        await expect(page).to_have_url(re.compile(re.escape(grok_sim.sign_in_url) + r"\?next=%2F$"))
        await page.get_by_label("Email address").fill("person@example.com")
        await page.get_by_label("Password").fill("anything")
        await page.get_by_role("button", name="Continue", exact=True).click()
        await expect(page.get_by_role("button", name="Attach", exact=True)).to_be_visible()
        await expect(page.get_by_role("link", name="Sign in", exact=True)).to_have_count(0)
        cookies = {c["name"]: c for c in await context.cookies(grok_sim.url)}
        assert cookies["sso"]["value"] in grok_sim.state.sessions
        assert grok_sim.state.sessions[cookies["sso"]["value"]] == "person@example.com"
        await model_select(page).click()
        await expect(page.get_by_role("menuitemradio", name=HEAVY)).to_be_enabled()
    finally:
        await context.close()


async def test_sending_signed_out_goes_to_sign_in(browser: Browser, grok_sim: Simulator) -> None:
    context = await browser.new_context()
    page = await context.new_page()
    try:
        await page.goto(grok_sim.chat_url())
        await send(page, "hello")
        await expect(page).to_have_url(re.compile(r"/sign-in"))
        assert grok_sim.state.user_messages() == []
    finally:
        await context.close()


async def test_heavy_selection_is_shown_and_kept(grok_page: Page, grok_sim: Simulator) -> None:
    page = grok_page
    await page.goto(grok_sim.chat_url())
    await expect(model_select(page)).to_contain_text("Auto")
    await pick_model(page, HEAVY)
    await expect(model_select(page)).to_have_text("Heavy")
    assert grok_sim.state.selection.family == "grok"
    assert grok_sim.state.selection.effort == "heavy"
    # The account keeps it: a reload and a reopened menu both read Heavy.
    await page.reload()
    await expect(model_select(page)).to_have_text("Heavy")
    await model_select(page).click()
    await expect(page.get_by_role("menuitemradio", name=HEAVY)).to_have_attribute(
        "aria-checked", "true"
    )
    # Names are exactly title and description (no check mark leaks into them).
    for name, checked in (
        ("Auto Chooses Fast or Expert", "false"),
        ("Heavy Team of experts", "true"),
    ):
        item = page.get_by_role("menuitemradio", name=name, exact=True)
        await expect(item).to_have_attribute("aria-checked", checked)
    await page.keyboard.press("Escape")
    await expect(page.get_by_role("menu")).to_have_count(0)
    await pick_model(page, re.compile("^Fast"))
    await expect(model_select(page)).to_have_text("Fast")


async def test_upload_send_stream_stop_control_done_reload(
    grok_page: Page, grok_sim: Simulator, tmp_path: Path
) -> None:
    page = grok_page
    grok_sim.set_scenario(think_ms=600, token_ms=15)
    archive = tmp_path / "context-job1.tar.gz"
    sha = make_tar_gz(archive, {"src/app.py": b"print('hi')\n", "README.md": b"# Readme\n"})
    await page.goto(grok_sim.chat_url())
    await pick_model(page, HEAVY)
    await wait_editable(page)
    await expect(submit(page)).to_be_disabled()
    await attach(page, archive)
    # The chip in the composer names the archive; it can be removed.
    chip = page.get_by_role("group", name=archive.name, exact=True)
    await expect(chip.get_by_role("button", name=f"Remove {archive.name}")).to_be_visible()
    await composer(page).fill("Review this project\nand list the files")
    await submit(page).click()

    # Streaming: "Stop model response" replaces Submit; the URL is the conversation's.
    await expect(stop(page)).to_be_visible()
    await expect(submit(page)).to_have_count(0)
    await expect(page).to_have_url(CONVERSATION_PATH)
    await expect(page.locator(".thinking-container")).to_contain_text("Thinking")
    await wait_answer_done(page)
    await expect(submit(page)).to_be_visible()

    [user] = await user_rows(page).all()
    await expect(user).to_contain_text(archive.name)  # the driver's proof of its own turn
    await expect(user).to_contain_text("Review this project")
    await expect(user.get_by_role("group", name=archive.name, exact=True)).to_be_visible()
    user_row = page.locator(".group", has=user)
    await expect(user_row.get_by_role("button", name="Edit", exact=True)).to_have_count(1)

    row = assistant_rows(page)
    await expect(row.locator(".thinking-container")).to_have_text(THOUGHT)
    for name in ASSISTANT_ACTIONS:
        await expect(row.get_by_role("button", name=name, exact=True)).to_have_count(1)
    text = await reply_text(row)
    assert not text.startswith("Thought for")
    assert sha in text and "src/app.py" in text and "README.md" in text
    assert "Review this project\nand list the files" in text
    assert "Grok · Heavy" in text
    bubble = row.locator(".message-bubble")
    assert await bubble.locator("table").count() == 1
    # Grok's own markup, not ChatGPT's: one <pre> per code block (its language label and "Copy
    # code" in a header beside it), tables in a plain container, no `.markdown` wrapper.
    assert await bubble.locator("pre > code.language-json").count() == 1
    assert await bubble.locator("pre pre").count() == 0
    assert await bubble.locator(".markdown, [class*=_tableContainer_]").count() == 0
    code_block = bubble.locator("[data-testid=code-block]")
    await expect(code_block.locator(".code-language")).to_have_text("json")
    await expect(code_block.get_by_role("button", name="Copy code")).to_have_count(1)
    assert (await code_block.locator("pre").inner_text()).startswith("{")
    hrefs = await bubble.locator("a").evaluate_all("as => as.map(a => a.href)")
    assert any("?sig=" in h for h in hrefs)
    assert any(h.startswith("https://docs.python") for h in hrefs)

    conv_id = page.url.rsplit("/", 1)[1]
    conv = grok_sim.state.conversation(conv_id)
    assert conv.turns[1].status == "complete"
    [sent] = grok_sim.state.user_messages()
    assert sent.text == "Review this project\nand list the files"
    assert sent.model is not None and (sent.model.family, sent.model.effort) == ("grok", "heavy")
    [upload] = [grok_sim.state.uploads[i] for i in sent.attachments]
    assert upload.sha256 == sha and upload.name == archive.name
    assert upload.members is not None and {m.name for m in upload.members} == {
        "src/app.py",
        "README.md",
    }
    ids = await page.locator(".group[id^=response-]").evaluate_all("es => es.map(e => e.id)")
    assert ids == [f"response-{t.message_id}" for t in conv.turns]

    await page.reload()
    await expect(assistant_rows(page)).to_have_count(1)
    await expect(user_rows(page)).to_have_count(1)
    assert await reply_text(assistant_rows(page)) == text
    reloaded = await page.locator(".group[id^=response-]").evaluate_all("es => es.map(e => e.id)")
    assert reloaded == ids
    await expect(assistant_rows(page).locator(".thinking-container")).to_have_text(THOUGHT)


async def test_stop_commits_what_streamed(grok_page: Page, grok_sim: Simulator) -> None:
    page = grok_page
    await page.goto(grok_sim.chat_url(think_ms=0, token_ms=80))
    await send(page, "a long answer please")
    await expect(assistant_rows(page).locator(".message-bubble")).to_contain_text("Upload receipt")
    await stop(page).click()
    await expect(stop(page)).to_have_count(0)
    await expect(assistant_rows(page).get_by_role("button", name="Copy")).to_be_visible()
    conv = grok_sim.state.conversation(page.url.rsplit("/", 1)[1])
    assert conv.turns[1].status == "stopped"
    assert grok_sim.state.events_of("stop")
    streamed = await reply_text(assistant_rows(page))
    await page.reload()
    assert await reply_text(assistant_rows(page)) == streamed
    assert "References" not in streamed


async def test_follow_up_in_the_same_conversation(grok_page: Page, grok_sim: Simulator) -> None:
    page = grok_page
    await page.goto(grok_sim.chat_url(answer="echo"))
    await send(page, "first question")
    await wait_answer_done(page)
    url = page.url
    await page.goto(url)  # a fresh visit to /c/<id>, like a follow-up job
    await expect(assistant_rows(page)).to_have_count(1)
    await send(page, "second question")
    await wait_answer_done(page, count=2)
    assert page.url == url
    await page.reload()
    await expect(assistant_rows(page)).to_have_count(2)
    await expect(assistant_rows(page).nth(1)).to_contain_text("second question")
    conv = grok_sim.state.conversation(url.rsplit("/", 1)[1])
    assert [t.text for t in conv.user_turns()] == ["first question", "second question"]


@pytest.mark.parametrize("prefix", ["c", "chat"])
async def test_conversation_paths(grok_page: Page, grok_sim: Simulator, prefix: str) -> None:
    conv_id = grok_sim.seed_conversation(
        [{"text": "earlier", "attachments": ["context-old.tar.gz"]}, "**earlier** answer"]
    )
    page = grok_page
    await page.goto(f"{grok_sim.url}/{prefix}/{conv_id}")
    await expect(user_rows(page)).to_contain_text("context-old.tar.gz")
    await expect(assistant_rows(page)).to_contain_text("earlier answer")
    await send(page, "a follow-up")
    await wait_answer_done(page, count=2)
    assert page.url == f"{grok_sim.url}/{prefix}/{conv_id}"
    assert [t.text for t in grok_sim.state.user_messages(conv_id)] == ["a follow-up"]


async def test_enter_sends_and_shift_enter_breaks_the_line(
    grok_page: Page, grok_sim: Simulator
) -> None:
    page = grok_page
    await page.goto(grok_sim.chat_url(answer="echo"))
    await wait_editable(page)
    await composer(page).click()
    await page.keyboard.type("line one")
    await page.keyboard.press("Shift+Enter")
    await page.keyboard.type("line two")
    await page.keyboard.press("Enter")
    await wait_answer_done(page)
    assert [t.text for t in grok_sim.state.user_messages()] == ["line one\nline two"]


async def test_typing_as_the_facts_driver_does(grok_page: Page, grok_sim: Simulator) -> None:
    """Facts §5: focus the first contenteditable, select all, insertText, bubbling input."""
    page = grok_page
    await page.goto(grok_sim.chat_url(answer="echo", draft="an old draft"))
    await wait_editable(page)
    await expect(composer(page)).to_have_text("an old draft")
    await page.evaluate(
        """(text) => {
            const el = document.querySelector('[contenteditable="true"]');
            el.focus();
            document.execCommand("selectAll");
            document.execCommand("insertText", false, text);
            el.dispatchEvent(new InputEvent("input", {bubbles: true, inputType: "insertText"}));
        }""",
        "typed by a driver",
    )
    await expect(submit(page)).to_be_enabled()
    await submit(page).click()
    await wait_answer_done(page)
    assert [t.text for t in grok_sim.state.user_messages()] == ["typed by a driver"]
