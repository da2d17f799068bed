"""Turn artifacts downloaded in real Chromium: plain links, blob: and data: URLs, native."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest

from oraculum.capture.artifacts import DownloadTimings
from oraculum.capture.collect import collect
from oraculum.core.config import Config
from oraculum.simulator import artifacts as sample
from oraculum.simulator.state import FileBlob

from .conftest import Shell

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

FAST = DownloadTimings(poll_count=20, poll_ms=50, settle_ms=3000, native_wait_s=5.0)


async def _collect(shell: Shell, tmp_path: Path, turns: list, *, blobs: int = 0):
    page, cid = await shell.open(turns)
    if blobs:
        # The app swaps some hrefs for blob: URLs once it has fetched the bytes.
        await page.wait_for_function(
            f"document.querySelectorAll('a[href^=\"blob:\"]').length >= {blobs}"
        )
    job, paths, persist = shell.job_on(tmp_path, cid)
    result = await collect(
        page, job, paths, Config(), response_index=0, reopen=page.reload, persist=persist,
        timings=FAST,
    )  # fmt: skip
    final = persist.finish(result.patch)
    manifest = json.loads(paths.artifacts_manifest.read_text())
    await page.close()
    return result, final, paths, manifest, persist


async def test_files_answer_plain_and_blob_links(shell: Shell, tmp_path: Path) -> None:
    result, job, paths, manifest, persist = await _collect(
        shell, tmp_path, ["Make files", {"answer": "files"}], blobs=2
    )
    by_name = {r["fileName"]: r for r in manifest["artifacts"]}
    assert set(by_name) == {
        "report.pdf", "bundle.zip", "chart.png", "notes.md", "report-draft.pdf", "export.zip"
    }  # fmt: skip
    for name, via, kind in [
        ("report.pdf", "link", "pdf"),
        ("bundle.zip", "link", "zip"),
        ("chart.png", "blob", "png"),
        ("notes.md", "blob", "text"),
    ]:
        record = by_name[name]
        assert record["state"] == "validated", record
        assert (record["via"], record["kind"]) == (via, kind)
        stored = paths.dir / record["path"]
        assert stored.name == f"{record['sha256']}-{name}"
        assert hashlib.sha256(stored.read_bytes()).hexdigest() == record["sha256"]
    assert "%%EOF" in by_name["report-draft.pdf"]["reason"]
    assert "HTML" in by_name["export.zip"]["reason"]
    assert job.artifact_failure_count == 2
    assert result.phase_hint == "complete_with_artifact_errors"
    assert len(job.artifact_paths) == 4
    gaps = {g for g in job.collection_gaps if g.startswith("artifact:")}
    assert gaps == {
        f"artifact:{by_name['report-draft.pdf']['candidateId']}",
        f"artifact:{by_name['export.zip']['candidateId']}",
    }
    assert manifest["inspection"] == {
        "state": "inspected",
        "candidatesFound": 6,
        "noneFound": False,
    }
    # The binding was persisted before the first download began.
    assert "collection_binding" in persist.patches[0]
    assert persist.patches[-1]["collection_binding"]["messageId"]


async def test_icon_only_cards_and_data_urls(shell: Shell, tmp_path: Path) -> None:
    text = "hello from a data URL\n"
    data_href = "data:text/plain;base64," + base64.b64encode(text.encode()).decode()
    html = (
        '<div class="markdown"><p>Two files:</p><ul>'
        f'<li><a href="{data_href}" download="hello.txt">hello.txt</a></li></ul></div>'
    )
    _, job, paths, manifest, _ = await _collect(shell, tmp_path, ["Q", {"html": html}])
    [record] = manifest["artifacts"]
    assert (record["state"], record["via"], record["fileName"]) == (
        "validated",
        "data",
        "hello.txt",
    )
    assert (paths.dir / record["path"]).read_text() == text
    assert job.collection_status == "complete"


async def test_native_download_fallback_and_dedupe(shell: Shell, tmp_path: Path) -> None:
    # A button whose handler navigates to an attachment: only the browser's download sees it.
    pdf = sample.pdf_bytes("Native")
    blob = FileBlob("nativefile0001", "native.pdf", "application/pdf", pdf)
    shell.sim.state.files[blob.id] = blob
    html = (
        '<div class="markdown"><p>Your report native.pdf is ready.</p>'
        f"<p><button onclick=\"location.href='/files/{blob.id}/native.pdf'\">"
        "Download native.pdf</button></p>"
        f'<p>Same bytes again: <a href="/files/{blob.id}/native.pdf" download="copy.pdf">'
        "copy.pdf</a></p></div>"
    )
    _, _job, paths, manifest, _ = await _collect(shell, tmp_path, ["Q", {"html": html}])
    records = manifest["artifacts"]
    assert [r["state"] for r in records] == ["validated", "validated"]
    assert [r["via"] for r in records] == ["native_download", "link"]
    # Identical bytes are stored once.
    assert records[0]["path"] == records[1]["path"]
    assert len(list((paths.dir / "artifacts").iterdir())) == 1
