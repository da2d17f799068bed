"""Collection in real Chromium against seeded simulator conversations, in both shells."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.async_api import Page

from oraculum.capture.collect import collect, recollect
from oraculum.capture.page import CaptureRequest, assistant_turns, capture_turn, script
from oraculum.capture.redact import REDACTED, safe_url
from oraculum.core.config import Config

from .conftest import Shell
from .support import SEEDED_ARCHIVE, Persist, make_job
from .test_rules import SAFE_URL_CASES

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

NO_ARTIFACTS = Config()  # capture on; these answers offer no files

RICH_MARKDOWN = "\n".join(
    [
        "## Findings",
        "",
        "See [the tarfile docs](https://docs.python.org/3/library/tarfile.html).",
        "",
        "- outer",
        "  - inner",
        "- second",
        "",
        "1. first",
        "2. second",
        "",
        "> a quoted line",
        "",
        "| Name | Value |",
        "| --- | --- |",
        "| pipe | a\\|b |",
        "| code | `x` |",
        "",
        "`````bash",
        "echo ```three``` and ````four````",
        "`````",
        "",
        "```python",
        "print('second block')",
        "```",
    ]
)


async def _collect(shell: Shell, tmp_path: Path, page: Page, cid: str, index: int, **fields):
    job, paths, persist = shell.job_on(tmp_path, cid, **fields)
    reopened: list[str] = []

    async def reopen() -> None:
        reopened.append(cid)
        await page.goto(shell.sim.conversation_url(cid))
        await page.wait_for_selector(".assistant-message")

    result = await collect(
        page, job, paths, NO_ARTIFACTS, response_index=index, reopen=reopen, persist=persist
    )
    final = persist.finish(result.patch)
    return result, final, paths, persist, reopened


async def test_rich_markdown_round_trips(shell: Shell, tmp_path: Path) -> None:
    page, cid = await shell.open(
        ["Explain", {"text": RICH_MARKDOWN, "reasoning_label": "Thought for 7s"}]
    )
    _result, job, paths, persist, _ = await _collect(shell, tmp_path, page, cid, 0)
    md = paths.response.read_text()
    assert md == RICH_MARKDOWN + "\n"  # response.md ends with a newline
    assert job.collection_status == "complete" and job.collection_gaps == []
    assert job.response_fidelity == "derived_markdown"
    # Nested presentation <pre> wrappers count once: two leaf blocks, two files.
    blocks = sorted(p.name for p in paths.dir.glob("response.block-*.txt"))
    assert blocks == ["response.block-1.txt", "response.block-2.txt"]
    assert (paths.dir / "response.block-1.txt").read_text() == "echo ```three``` and ````four````\n"
    record = json.loads((paths.dir / "response.capture.json").read_text())
    assert record["schemaVersion"] == 1
    assert record["reasoningLabel"] == "Thought for 7s"
    assert [b["language"] for b in record["codeBlocks"]] == ["bash", "python"]
    assert record["binding"]["messageId"] and record["binding"]["turnSha256"]
    # The binding was persisted before the end (before any download could start).
    assert persist.patches[-1]["collection_binding"]["messageId"] == record["binding"]["messageId"]
    assert "Copy code" not in md and "Thought for" not in md
    await page.close()


async def test_single_markdown_block_is_saved_verbatim(shell: Shell, tmp_path: Path) -> None:
    page, cid = await shell.open(["Write a file", {"answer": "markdown"}])
    result, job, paths, _, _ = await _collect(shell, tmp_path, page, cid, 0)
    md = paths.response.read_text()
    assert job.response_fidelity == "exact_code"
    assert md.startswith("# Simulated answer\n")
    assert "```python\nprint('exact code survives')\n```" in md
    assert "?case=synthetic&v=1#evidence" in md  # stable query strings survive
    assert result.response_text == md
    await page.close()


SIGNED = "https://files.example/out.pdf?X-Amz-Signature=SECRETSIG&X-Amz-Expires=60"


async def test_signed_urls_dropped_and_redacted(shell: Shell, tmp_path: Path) -> None:
    html = (
        '<div class="markdown prose"><p>Fetch <a href="https://files.example/out.pdf?sig=SECRET1">'
        f"the signed file</a> or paste {SIGNED} into a browser.</p>"
        '<p>Also <a href="ftp://legacy.example/x">an ftp mirror</a> and '
        '<a href="https://docs.example/guide">the guide</a>.</p></div>'
    )
    page, cid = await shell.open(["Where?", {"html": html}])
    _result, job, paths, _, _ = await _collect(shell, tmp_path, page, cid, 0)
    assert "redacted_transport_links" in job.collection_gaps
    assert "unresolved_source_links" in job.collection_gaps
    assert job.response_fidelity == "text_only" and job.collection_status == "partial"
    assert REDACTED in paths.response.read_text()
    for file in paths.dir.rglob("*"):
        if file.is_file():
            text = file.read_text(errors="replace")
            assert "SECRET" not in text, file.name
    record = json.loads((paths.dir / "response.capture.json").read_text())
    urls = [s.get("url") for s in record["sources"]]
    assert "https://docs.example/guide" in urls
    assert [s["label"] for s in record["sources"] if s.get("unresolved")] == [
        "the signed file",
        "an ftp mirror",
    ]
    await page.close()


async def test_unresolved_source_alone_gives_its_gap(shell: Shell, tmp_path: Path) -> None:
    page, cid = await shell.open(["Q", {"answer": "default"}])
    _, job, paths, _, _ = await _collect(shell, tmp_path, page, cid, 0)
    # The default answer links a signed receipt: the link is dropped, its text stays. Its label
    # says "export", so it is also tried as an artifact; the cross-origin read fails, optionally.
    assert job.collection_gaps[0] == "unresolved_source_links"
    assert all(g.startswith("artifact:candidate-") for g in job.collection_gaps[1:])
    assert page.url == shell.sim.conversation_url(cid)  # activating it never navigated away
    md = paths.response.read_text()
    assert "signed receipt export" in md and "sig=" not in md
    assert "[tarfile documentation](https://docs.python.org/3/library/tarfile.html)" in md
    await page.close()


async def test_two_identities_in_one_root_are_refused(shell: Shell, tmp_path: Path) -> None:
    html = (
        '<div class="markdown"><p>one</p><div data-message-id="intruder-1"><p>two</p></div></div>'
    )
    page, cid = await shell.open(["Q", {"html": html}])
    _result, job, paths, _, _ = await _collect(shell, tmp_path, page, cid, 0)
    assert job.collection_status == "failed" and job.recollection_needed
    assert "bound_response_capture" in job.collection_gaps
    assert any("several message IDs" in g for g in job.collection_gaps)
    assert not paths.response.exists()
    await page.close()


async def test_heading_wrapper_binding_and_identity_over_index(shell: Shell) -> None:
    page, cid = await shell.open(
        ["Q1", {"text": "First answer.", "message_id": "msg-first"}, "Q2",
         {"text": "Second answer.", "message_id": "msg-second"}]
    )  # fmt: skip
    counted = await assistant_turns(page)
    assert counted["count"] == 2 and counted["messageIds"] == ["msg-first", "msg-second"]
    capture = await capture_turn(page, CaptureRequest(1, expect_conversation_id=cid))
    # The root is the heading's next sibling; the id is found on a descendant.
    assert capture.raw_html.startswith('<div class="turn-body"')
    assert capture.message_id == "msg-second"
    assert capture.normalized_text.endswith("Second answer.")
    shifted = await capture_turn(page, CaptureRequest(0, cid, message_id="msg-second"))
    assert shifted.ok and shifted.response_index == 1 and shifted.message_id == "msg-second"
    gone = await capture_turn(page, CaptureRequest(0, cid, message_id="msg-gone"))
    assert not gone.ok and gone.error == "bound_message_absent"
    await page.close()


async def test_selection_only_ids_bind_in_the_redesign(shell: Shell) -> None:
    page, cid = await shell.open(
        ["Q", {"text": "Answer.", "message_id": "msg-sel"}], message_ids="selection"
    )
    capture = await capture_turn(page, CaptureRequest(0, cid))
    # The redesign keeps data-chatgpt-selection-message-id; the classic shell then has none.
    assert capture.message_id == ("msg-sel" if shell.name == "redesign" else None)
    await page.close()


async def test_positional_binding_hash_mismatch_refused_on_recollection(
    shell: Shell, tmp_path: Path
) -> None:
    store, job, paths = make_job(tmp_path, conversation_id=None, chat_url=None)
    archive = Path(job.archive_path).name
    page, cid = await shell.open(
        [{"text": "Q", "attachments": [archive]}, "The original answer."], message_ids="none"
    )
    persist = Persist(store, job.id)
    job = persist.finish({"conversation_id": cid, "chat_url": shell.sim.conversation_url(cid)})
    result = await collect(
        page, job, paths, NO_ARTIFACTS, response_index=0, reopen=page.reload, persist=persist
    )
    job = persist.finish(result.patch)
    assert job.collection_binding is not None and "messageId" not in job.collection_binding
    assert job.collection_status == "complete"
    original = paths.response.read_text()

    # Unchanged, the positional binding is reacquired through the user turn with the archive.
    again = await recollect(page, job, paths, NO_ARTIFACTS, reopen=page.reload, persist=persist)
    assert again.error is None and again.status == "complete"

    # The turn at the saved position changes (say, a regenerated answer): refused.
    turn = shell.sim.state.conversations[cid].turns[1]
    turn.html = turn.html.replace("original", "rewritten")
    await page.reload()
    await page.wait_for_selector(".assistant-message")
    result = await recollect(page, job, paths, NO_ARTIFACTS, reopen=page.reload, persist=persist)
    final = persist.finish(result.patch)
    assert final.recollection_error and "bound_turn_changed" in final.recollection_error
    assert final.recollection_needed and "bound_response_capture" in final.collection_gaps
    assert final.collection_status == "partial"  # the earlier answer is still held
    assert paths.response.read_text() == original
    await page.close()


async def test_another_conversation_is_never_captured(shell: Shell, tmp_path: Path) -> None:
    page, cid = await shell.open(["Mine", "My own answer."])
    other = shell.sim.seed_conversation(["Other", "Someone else's answer."])
    await page.goto(shell.sim.conversation_url(other))
    await page.wait_for_selector(".assistant-message")
    _result, _job, paths, _, reopened = await _collect(shell, tmp_path, page, cid, 0)
    assert reopened == [cid]
    assert paths.response.read_text() == "My own answer.\n"

    # A reopen that keeps landing elsewhere: bounded retries, then failure; nothing saved.
    store, job2, paths2 = make_job(tmp_path / "b", conversation_id=cid, chat_url=None)
    attempts: list[int] = []
    await page.goto(shell.sim.conversation_url(other))
    await page.wait_for_selector(".assistant-message")

    async def wrong_reopen() -> None:
        attempts.append(1)
        await page.goto(shell.sim.conversation_url(other))
        await page.wait_for_selector(".assistant-message")

    failed = await collect(
        page, job2, paths2, NO_ARTIFACTS, response_index=0, reopen=wrong_reopen,
        persist=Persist(store, job2.id),
    )  # fmt: skip
    assert failed.status == "failed" and failed.patch["recollection_needed"]
    assert 1 <= len(attempts) <= 3
    assert any("conversation_mismatch" in g for g in failed.patch["collection_gaps"])
    assert not paths2.response.exists()
    assert not (paths2.dir / "response.raw.txt").exists()
    await page.close()


async def test_recollection_keeps_a_different_earlier_version(shell: Shell, tmp_path: Path) -> None:
    page, cid = await shell.open(["Q", {"text": "Fresh answer.", "message_id": "m-keep"}])
    store, job, paths = make_job(
        tmp_path, conversation_id=cid, chat_url=shell.sim.conversation_url(cid), complete=True,
        collection_binding={"conversationId": cid, "responseIndex": 0, "messageId": "m-keep"},
    )  # fmt: skip
    paths.response.write_text("An older, different capture.")
    result = await recollect(
        page, job, paths, NO_ARTIFACTS, reopen=page.reload, persist=Persist(store, job.id)
    )
    assert result.status == "complete"
    assert paths.response.read_text() == "Fresh answer.\n"
    kept = list(paths.dir.glob("response.md.*.previous"))
    assert len(kept) == 1 and kept[0].read_text() == "An older, different capture."
    await page.close()


async def test_safe_url_rule_agrees_with_python(shell: Shell) -> None:
    page, _ = await shell.open(["Q", "A"])
    for href, base, expected in SAFE_URL_CASES:
        html = f'<a href="{href}">x</a>' if href else "<a>x</a>"
        js = await page.evaluate(
            """([html, base]) => {
                const doc = document.implementation.createHTMLDocument("t");
                const b = doc.createElement("base"); b.href = base || location.href;
                doc.head.append(b); doc.body.innerHTML = html;
                const a = doc.querySelector("a");
                return a.getAttribute("href") === null ? null : a.href;
            }""",
            [html, base],
        )
        assert expected is None or js == expected or safe_url(js) == expected
    # The page script itself: sanitized HTML keeps only safe hrefs.
    cases = "".join(
        f'<li><a href="{h.replace("&", "&amp;")}">{i}</a></li>'
        for i, (h, _, _) in enumerate(SAFE_URL_CASES)
        if h
    )
    cid = shell.sim.seed_conversation(
        ["Q", {"html": f'<div class="markdown"><ul>{cases}</ul></div>'}]
    )
    await page.goto(shell.sim.conversation_url(cid))
    await page.wait_for_selector(".assistant-message")
    capture = await capture_turn(page, CaptureRequest(0, cid))
    kept = {s["label"]: s.get("url") for s in capture.sources}
    for i, (href, base, expected) in enumerate(SAFE_URL_CASES):
        if not href:
            continue
        want = expected if base is None else safe_url(href, capture.url)
        assert kept[str(i)] == want, href
    assert script("capture.js").lstrip().startswith("//")
    await page.close()


async def test_first_capture_without_the_jobs_archive_turn_fails_closed(
    shell: Shell, tmp_path: Path
) -> None:
    # A thread that shows only an earlier exchange (another archive): nothing is ours.
    page, cid = await shell.open(
        [{"text": "Earlier", "attachments": ["context-other.tar.zst"]}, "An earlier answer."]
    )
    result, job, paths, _, _ = await _collect(shell, tmp_path, page, cid, 0)
    assert result.status == "failed" and result.response_text is None
    assert job.collection_status == "failed" and job.recollection_needed
    assert "bound_response_capture" in job.collection_gaps
    assert any("archive_turn_absent" in g for g in job.collection_gaps)
    assert not paths.response.exists()
    await page.close()


async def test_first_capture_with_the_archive_in_two_user_turns_fails_closed(
    shell: Shell, tmp_path: Path
) -> None:
    page, cid = await shell.open(
        [
            {"text": "First", "attachments": [SEEDED_ARCHIVE]},
            "First answer.",
            {"text": "Second", "attachments": [SEEDED_ARCHIVE]},
            "Second answer.",
        ]
    )
    result, job, paths, _, _ = await _collect(shell, tmp_path, page, cid, 1)
    assert result.status == "failed" and job.recollection_needed
    assert any("archive_turn_ambiguous" in g for g in job.collection_gaps)
    assert not paths.response.exists()
    await page.close()


async def test_first_capture_binds_the_reply_after_the_archive_not_the_count(
    shell: Shell, tmp_path: Path
) -> None:
    # An earlier exchange sits at the index counted before send; ours follows the archive.
    page, cid = await shell.open(
        [
            {"text": "Earlier", "attachments": ["context-other.tar.zst"]},
            "An earlier answer.",
            {"text": "Ours", "attachments": [SEEDED_ARCHIVE]},
            "Our answer.",
        ]
    )
    result, job, paths, _, _ = await _collect(shell, tmp_path, page, cid, 0)
    assert result.status == "complete"
    assert paths.response.read_text() == "Our answer.\n"
    assert job.collection_binding["responseIndex"] == 1
    await page.close()
