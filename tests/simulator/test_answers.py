"""Answer templates as a collector meets them: exact Markdown blocks, files good and bad."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Page, expect

from oraculum.simulator import Simulator

from .helpers import assistant_turns, send, wait_answer_done

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]


async def test_single_markdown_block(page: Page, sim: Simulator) -> None:
    await page.goto(sim.chat_url(answer="markdown"))
    await send(page, "classic", "give me markdown")
    await wait_answer_done(page, "classic")
    answer = assistant_turns(page)
    # Only leaf <pre> elements count; the outer one is a presentation wrapper (facts §2.3).
    leaves = answer.locator("pre:not(:has(pre))")
    await expect(leaves).to_have_count(1)
    await expect(leaves.locator("code.language-markdown")).to_have_count(1)
    code = await leaves.locator("code").text_content()
    assert code is not None
    assert code.startswith("# Simulated answer\n") and "```python\n" in code
    assert "?case=synthetic&v=1#evidence" in code


async def test_downloadable_files(page: Page, sim: Simulator) -> None:
    await page.goto(sim.chat_url(answer="files"))
    await send(page, "classic", "make files")
    await wait_answer_done(page, "classic")
    answer = assistant_turns(page)
    links = answer.locator("a[download]")
    await expect(links).to_have_count(6)
    # Blob links become blob: URLs; plain links point at /files/.
    chart = answer.get_by_role("link", name="chart.png")
    await expect(chart).to_have_attribute("href", re.compile(r"^blob:"))
    report = answer.get_by_role("link", name="report.pdf")
    await expect(report).to_have_attribute("href", re.compile(r"^/files/"))
    bodies = {}
    for name in ("report.pdf", "bundle.zip", "chart.png", "report-draft.pdf", "export.zip"):
        async with page.expect_download() as info:
            await answer.get_by_role("link", name=name, exact=True).click()
        download = await info.value
        path = await download.path()
        bodies[name] = path.read_bytes()
    assert bodies["report.pdf"].startswith(b"%PDF-") and b"%%EOF" in bodies["report.pdf"][-64:]
    assert b"%%EOF" not in bodies["report-draft.pdf"]  # truncated
    assert bodies["bundle.zip"].startswith(b"PK") and b"PK\x05\x06" in bodies["bundle.zip"]
    assert bodies["chart.png"].startswith(b"\x89PNG") and b"IEND" in bodies["chart.png"][-12:]
    assert bodies["export.zip"].lower().startswith(b"<!doctype html")  # an error page


async def test_files_without_text(page: Page, sim: Simulator) -> None:
    await page.goto(sim.chat_url(answer="files_only"))
    await send(page, "classic", "only files")
    await wait_answer_done(page, "classic")
    answer = assistant_turns(page)
    assert (await answer.inner_text()).strip() == ""
    await expect(answer.get_by_role("link", name="Download report.pdf")).to_be_visible()
    await expect(answer.locator("a[download]")).to_have_count(6)


@pytest.mark.parametrize("mode", ["selection", "none"])
async def test_message_id_attribute_modes(page: Page, sim: Simulator, mode: str) -> None:
    await page.goto(sim.chat_url(shell="redesign", answer="echo", message_ids=mode))
    await send(page, "redesign", "ids")
    await wait_answer_done(page, "redesign")
    await expect(page.locator("[data-message-id]")).to_have_count(0)
    expected = 2 if mode == "selection" else 0  # user bubble + assistant body
    await expect(page.locator("[data-chatgpt-selection-message-id]")).to_have_count(expected)
