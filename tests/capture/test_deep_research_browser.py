"""The Deep Research widget read in real Chromium (both shells): the cross-origin report frame,
the export observed in the host page while the browser still performs its own download, and
collection with ``research=True`` against seeded finished research turns."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from oraculum.capture.collect import collect
from oraculum.capture.research import read_export, read_frame, report_frame
from oraculum.core.config import Config
from oraculum.simulator import deep_research as fixture

from .conftest import Shell
from .support import SEEDED_ARCHIVE

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

RESEARCH = [{"text": "Compare", "attachments": [SEEDED_ARCHIVE]}, {"deep_research": True}]


async def _open(shell: Shell, **knobs):
    page, cid = await shell.open(RESEARCH, **knobs)
    frame = None
    for _ in range(50):  # the widget loads its frames after the turn renders
        frame = await report_frame(page, None)
        reading = await read_frame(frame) if frame else None
        if reading and reading.completed:
            return page, cid, frame
        await page.wait_for_timeout(100)
    raise AssertionError(f"the research widget never showed a finished report ({frame})")


async def test_the_report_frame_is_cross_origin_and_holds_the_widget_state(shell: Shell) -> None:
    page, _, frame = await _open(shell)
    try:
        assert urlsplit(frame.url).netloc != urlsplit(page.url).netloc
        reading = await read_frame(frame)
        assert reading is not None and reading.widget_state is not None
        parts = reading.widget_state["report_message"]["content"]["parts"]
        assert parts[0].startswith(f"# {fixture.REPORT_TITLE}")
        # The host page's own realm cannot see into it: only the browser's frame tree can.
        readable = await page.evaluate(
            "() => { try { return !!document.querySelector('iframe').contentDocument; }"
            " catch (e) { return false; } }"
        )
        assert readable is False
    finally:
        await page.close()


async def test_the_export_is_observed_and_the_browser_still_downloads_it(shell: Shell) -> None:
    page, _, frame = await _open(shell)
    try:
        async with page.expect_download() as download_info:
            exported = await read_export(page, frame)
        download = await download_info.value
        assert exported.data is not None, exported.reason
        assert download.suggested_filename == exported.name == "deep-research-report.md"
        assert Path(await download.path()).read_bytes() == exported.data
        assert exported.data.decode().startswith(f"# {fixture.REPORT_TITLE}\n")
        # Disarmed afterwards: the page's own functions are its own again.
        restored = await page.evaluate(
            "() => !window.__oraculumResearchExport && "
            "URL.createObjectURL.toString().includes('[native code]')"
        )
        assert restored is True
    finally:
        await page.close()


async def test_no_export_control_is_a_reason_not_an_error(shell: Shell) -> None:
    page, _, frame = await _open(shell, scenario="dr_no_export")
    try:
        exported = await read_export(page, frame)
        assert exported.data is None and exported.reason == "the report has no Export control"
    finally:
        await page.close()


async def test_collect_with_research_saves_the_report_not_the_turn(
    shell: Shell, tmp_path: Path
) -> None:
    page, cid, _ = await _open(shell, scenario="dr_code_tokens")
    try:
        job, paths, persist = shell.job_on(tmp_path, cid)

        async def reopen() -> None:
            await page.goto(shell.sim.conversation_url(cid))

        result = await collect(
            page,
            job,
            paths,
            Config(),
            response_index=0,
            reopen=reopen,
            persist=persist,
            research=True,
        )
        persist.finish(result.patch)
        answer = paths.response.read_text()
        assert answer.startswith(f"# {fixture.REPORT_TITLE}\n")
        assert fixture.STARTED_TEXT not in answer
        record = json.loads((paths.dir / "response.capture.json").read_text())
        assert record["method"] == "native_report_download"
        assert record["report"]["nativeExport"]["state"] == "validated"
        assert result.patch["collection_status"] == "complete", result.patch["collection_gaps"]
        assert "\ue200cite\ue202turn0search0\ue201" in answer  # verbatim inside its fence
    finally:
        await page.close()
