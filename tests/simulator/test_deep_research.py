"""Deep Research in real Chromium: the tool and its pill, the clarifying question, the research
phase, the report widget on a second origin, its Apps SDK state and the host-performed export
(docs/simulator.md "Deep Research")."""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.async_api import Frame, Page, expect

from oraculum.simulator import Simulator
from oraculum.simulator import deep_research as dr

from .helpers import SHELLS, composer, send_button, stop_button, wait_answer_done, wait_editable

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]

WIDGET = 'iframe[title="internal://deep-research"]'


async def choose_deep_research(page: Page, shell: str, prompt: str) -> None:
    await wait_editable(page)
    await composer(page, shell).fill(prompt)
    await page.get_by_role("button", name="Add files and more").click()
    await page.get_by_text("Deep researchGet a detailed report").click()


async def frames(page: Page) -> tuple[Frame, Frame]:
    """(sandbox frame, report frame) of the only research widget."""
    handle = await page.locator(WIDGET).element_handle()
    assert handle is not None
    sandbox = await handle.content_frame()
    assert sandbox is not None
    for _ in range(100):
        if sandbox.child_frames and "/deep-research/report" in sandbox.child_frames[0].url:
            return sandbox, sandbox.child_frames[0]
        await asyncio.sleep(0.05)
    raise AssertionError("the report frame never loaded")


async def report_text(report: Frame) -> str:
    return str(await report.evaluate("document.body.innerText"))


async def wait_report(report: Frame) -> None:
    await expect(report.locator("[data-testid=deep-research-report]")).to_be_visible(timeout=20_000)


async def widget_state(sandbox: Frame) -> Any:
    # As a capture reads it: from the sandbox frame's realm, `frames[0]` is the report frame.
    return await sandbox.evaluate("frames[0].openai.widgetState")


@pytest.mark.parametrize("shell", SHELLS)
async def test_research_turn_end_to_end(page: Page, sim: Simulator, shell: str) -> None:
    await page.goto(sim.chat_url(shell=shell, research_ms=2500, research_reported_ms=600_000))
    await choose_deep_research(page, shell, "Compare zstd and gzip")
    pill = composer(page, shell).locator("[data-inline-selection-pill]")
    await expect(pill).to_have_text("Deep research")
    await expect(pill).to_have_attribute("aria-label", "Deep research")
    html = await page.locator("#prompt-textarea").inner_html()
    assert html.index("Compare zstd and gzip") < html.index("data-inline-selection-pill")
    await send_button(page, shell).click()

    await expect(page.locator(WIDGET)).to_have_count(1)
    sandbox, report = await frames(page)
    await expect(report.locator("[data-testid=research-status]")).to_contain_text("Researching…")
    live = await report_text(report)
    assert "Research completed in" not in live
    assert any(step in live for step in dr.STATUS_STEPS) and " sources · " in live
    await expect(stop_button(page, shell)).to_be_visible()  # the whole run, by design
    assert await widget_state(sandbox) is None
    await expect(page.locator('[data-message-author-role="assistant"]')).to_have_text(
        dr.STARTED_TEXT
    )

    await wait_report(report)
    await wait_answer_done(page, shell)
    text = await report_text(report)
    assert text.startswith("Research completed in 10m ·\n0\n1\n2")
    assert "\ncitations ·\n" in text and "\nsearches\n" + dr.REPORT_TITLE in text
    assert "ratio.\n1\nIts frame" in text  # a citation pill is its own line
    state = await widget_state(sandbox)
    markdown = state["report_message"]["content"]["parts"][0]
    assert markdown == dr.report_markdown(sim.state.defaults)
    assert state["report_message"]["metadata"]["content_references"] == dr.content_references(
        markdown
    )
    user = sim.state.user_messages()[-1]
    assert user.tool == "deep_research"
    conv = sim.state.conversation(
        sim.state.conversations[next(reversed(sim.state.conversations))].id
    )
    assert [t.research_kind for t in conv.assistant_turns()] == ["research"]


@pytest.mark.parametrize("shell", SHELLS)
async def test_widget_placement_per_shell(page: Page, sim: Simulator, shell: str) -> None:
    cid = sim.seed_conversation(["Compare", {"deep_research": True}], shell=shell)
    await page.goto(sim.conversation_url(cid))
    await expect(page.locator(WIDGET)).to_have_count(1)
    if shell == "classic":
        # Inside the reply's article, after the message body.
        inside = page.locator("article[data-turn=assistant] .turn-body .research-widget " + WIDGET)
        await expect(inside).to_have_count(1)
    else:
        block = page.locator("section[data-turn-key] > [data-testid=deep-research-block] " + WIDGET)
        await expect(block).to_have_count(1)
        await expect(page.locator("[data-chatgpt-selection-message-id] " + WIDGET)).to_have_count(0)
    _, report = await frames(page)
    await wait_report(report)


async def test_widget_is_a_cross_origin_sandboxed_frame(page: Page, sim: Simulator) -> None:
    cid = sim.seed_conversation(["Compare", {"deep_research": True}])
    await page.goto(sim.conversation_url(cid))
    sandbox, report = await frames(page)
    page_origin = urlsplit(page.url)
    frame_origin = urlsplit(sandbox.url)
    assert f"{frame_origin.scheme}://{frame_origin.netloc}" == sim.widget_origin
    assert (frame_origin.hostname, frame_origin.port) != (page_origin.hostname, page_origin.port)
    assert frame_origin.hostname != page_origin.hostname  # another site, not just another port
    assert urlsplit(report.url).netloc == frame_origin.netloc  # the child is same-origin
    sandbox_attr = await page.locator(WIDGET).get_attribute("sandbox")
    assert sandbox_attr is not None and "allow-downloads" not in sandbox_attr.split()
    # The page cannot reach into it: the browser enforces the origin boundary.
    blocked = await page.evaluate(
        """() => {
            const frame = document.querySelector('iframe[title="internal://deep-research"]');
            let reachable = true;
            try { void frame.contentWindow.document.body; } catch (e) { reachable = false; }
            return { doc: frame.contentDocument === null, reachable };
        }"""
    )
    assert blocked == {"doc": True, "reachable": False}


@pytest.mark.parametrize("shell", SHELLS)
async def test_export_is_a_real_download_by_the_host_page(
    page: Page, sim: Simulator, shell: str
) -> None:
    cid = sim.seed_conversation(["Compare", {"deep_research": True}], shell=shell)
    await page.goto(sim.conversation_url(cid))
    _, report = await frames(page)
    await wait_report(report)
    await report.get_by_role("button", name="Export").click()
    item = report.get_by_role("menuitem", name="Export to Markdown")
    await expect(item).to_be_visible()
    async with page.expect_download() as info:
        await item.click()
    download = await info.value
    assert download.suggested_filename == dr.EXPORT_FILENAME
    assert download.url.startswith(f"blob:{sim.url}/")  # the host page's Blob URL
    body = (await download.path()).read_text(encoding="utf-8")
    assert body == dr.export_markdown(dr.report_markdown(sim.state.conversation(cid).scenario))
    assert body.startswith(f"# {dr.REPORT_TITLE}\n")
    events = sim.state.events_of("page:deep_research_export")
    assert events[-1]["filename"] == dr.EXPORT_FILENAME
    assert events[-1]["bytes"] == len(body.encode())


async def test_no_export_knob(page: Page, sim: Simulator) -> None:
    cid = sim.seed_conversation(["Compare", {"deep_research": True}], scenario="dr_no_export")
    await page.goto(sim.conversation_url(cid))
    sandbox, report = await frames(page)
    await wait_report(report)
    await expect(report.get_by_role("button", name="Export")).to_have_count(0)
    assert (await widget_state(sandbox))["report_message"]["id"]  # the state is still there


async def test_no_widget_state_knob(page: Page, sim: Simulator) -> None:
    cid = sim.seed_conversation(["Compare", {"deep_research": True}], scenario="dr_no_widget_state")
    await page.goto(sim.conversation_url(cid))
    sandbox, report = await frames(page)
    await wait_report(report)
    assert await widget_state(sandbox) is None
    await expect(report.get_by_role("heading", name=dr.REPORT_TITLE)).to_be_visible()
    await expect(report.get_by_role("button", name="Export")).to_have_count(1)


async def test_unresolved_citation_knob(page: Page, sim: Simulator) -> None:
    cid = sim.seed_conversation(
        ["Compare", {"deep_research": True}], scenario="dr_unresolved_citation"
    )
    await page.goto(sim.conversation_url(cid))
    sandbox, report = await frames(page)
    await wait_report(report)
    message = (await widget_state(sandbox))["report_message"]
    unresolved = dr.token(dr.UNRESOLVED_REF)
    assert unresolved in message["content"]["parts"][0]
    matched = [r["matched_text"] for r in message["metadata"]["content_references"]]
    assert unresolved not in matched
    await expect(report.locator('.citation-pill[data-citation="?"]')).to_have_text("?")


async def test_code_tokens_knob(page: Page, sim: Simulator) -> None:
    cid = sim.seed_conversation(["Compare", {"deep_research": True}], scenario="dr_code_tokens")
    await page.goto(sim.conversation_url(cid))
    sandbox, report = await frames(page)
    await wait_report(report)
    code = report.locator("pre code.language-text")
    await expect(code).to_contain_text(
        "\ue200cite\ue202turn0search0\ue201 or the bare citeturn0search0"
    )
    markdown = (await widget_state(sandbox))["report_message"]["content"]["parts"][0]
    fence_at = markdown.index("```text")
    refs = (await widget_state(sandbox))["report_message"]["metadata"]["content_references"]
    assert all(r["start_idx"] < fence_at for r in refs if "start_idx" in r)


@pytest.mark.parametrize("shell", SHELLS)
async def test_clarifying_question_then_reply_starts_research(
    page: Page, sim: Simulator, shell: str
) -> None:
    await page.goto(sim.chat_url(shell=shell, scenario="dr_clarify", research_ms=300))
    await choose_deep_research(page, shell, "Compare zstd and gzip")
    await send_button(page, shell).click()
    await wait_answer_done(page, shell)
    reply = page.locator('[data-message-author-role="assistant"]')
    await expect(reply).to_contain_text("Before I start the research, two quick questions:")
    await expect(page.locator(WIDGET)).to_have_count(0)
    assert not (await reply.inner_text()).startswith("Deep Research has started working on your")

    # The answer to the question: no pill needed, the research starts.
    await wait_editable(page)
    await composer(page, shell).fill("Both formats; weigh speed.")
    await send_button(page, shell).click()
    await expect(page.locator(WIDGET)).to_have_count(1)
    _, report = await frames(page)
    await wait_report(report)
    await wait_answer_done(page, shell, count=2)
    assert sim.state.user_messages()[-1].tool is None
    conv = sim.state.conversation(page.url.rsplit("/", 1)[1])
    assert [t.research_kind for t in conv.assistant_turns()] == ["clarify", "research"]


async def test_backspace_removes_the_pill_and_the_tool(page: Page, sim: Simulator) -> None:
    await page.goto(sim.chat_url(answer="echo"))
    await choose_deep_research(page, "classic", "Plain question")
    box = composer(page, "classic")
    await expect(box.locator("[data-inline-selection-pill]")).to_have_count(1)
    await box.click()
    await page.keyboard.press("End")
    await page.keyboard.press("Backspace")  # the U+FEFF after it
    await page.keyboard.press("Backspace")  # the pill
    await expect(box.locator("[data-inline-selection-pill]")).to_have_count(0)
    await send_button(page, "classic").click()
    await wait_answer_done(page, "classic")
    assert sim.state.user_messages()[-1].tool is None
    await expect(page.locator(WIDGET)).to_have_count(0)


async def test_status_steps_and_reload_mid_research(page: Page, sim: Simulator) -> None:
    await page.goto(sim.chat_url(research_ms=4000))
    await choose_deep_research(page, "classic", "Compare")
    await send_button(page, "classic").click()
    _, report = await frames(page)
    activity = report.locator("[data-testid=research-activity]")
    await expect(activity).to_have_text(dr.STATUS_STEPS[0])
    await expect(activity).to_have_text(dr.STATUS_STEPS[1])
    await page.reload()  # the server's schedule goes on; the page picks it up again
    _, report = await frames(page)
    await expect(report.locator("[data-testid=research-status]")).to_be_visible()
    await wait_report(report)
    await wait_answer_done(page, "classic")
    assert "Research completed in 4s" in await report_text(report)
    await page.reload()  # finished: the widget shows the report at once
    _, report = await frames(page)
    await wait_report(report)
    await expect(page.get_by_role("button", name="Copy response")).to_have_count(1)


async def test_stop_during_research(page: Page, sim: Simulator) -> None:
    await page.goto(sim.chat_url(research_ms=60_000))
    await choose_deep_research(page, "classic", "Compare")
    await send_button(page, "classic").click()
    _, report = await frames(page)
    await expect(report.locator("[data-testid=research-status]")).to_be_visible()
    await stop_button(page, "classic").click()
    await expect(report.locator("body")).to_have_text("Research stopped")
    await expect(stop_button(page, "classic")).to_have_count(0)
    assert sim.state.events_of("stop")
