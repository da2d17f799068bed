"""Issue 40 §1: a host hands its model either a result's text or its structured content (Claude
Code and Codex give the JSON), so each stands on its own — the message, the facts, the next step
and every carried wake-up's notice are in both — and the JSON stays within 1.5× the text. Shown
over a typical result of every tool a session can run without a browser or a pi agent, through
the official client and a real `oraculum mcp` server."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from homes import write_fast_config
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.submit import submit

from ..subagents.support import install_fake_codex, path_with
from .support import mcp_client, text_of

pytestmark = pytest.mark.slow

RATIO = 1.5
SESSION = "sizes"
PROMPT = (
    "Review the request parser in src/app.py: is the error handling complete, and which inputs "
    "would make it crash? Give a list of concrete problems, each with the line it is on and a "
    "suggested fix, then a short overall verdict. The archive holds the whole project."
)
NOT_AN_INSTRUCTION = "not an instruction"
# A dev server, as an agent starts one.
SERVER = {
    "executable": sys.executable,
    "args": ["-c", "import time; print('listening on :8000', flush=True); time.sleep(60)"],
}


def json_size(data: Any) -> int:
    """The structured content as a host passes it on: compact JSON."""
    return len(json.dumps(data, separators=(",", ":"), ensure_ascii=False))


def stands_alone(result: Any) -> tuple[str, dict[str, Any]]:
    """Check that the text and the structured content each say everything; return both (the
    ratio is checked over all of them at the end, to show every result that breaks it)."""
    text, data = text_of(result), result.structured_content
    assert isinstance(data, dict) and text
    if result.is_error:
        error = data["error"]
        assert error["message"] in text and error.get("suggestedNextStep", "") in text
    else:
        assert data["message"] and data["message"] in text, (data, text)
        assert data.get("nextStep", "") in text, (data, text)
    for wakeup in data.get("wakeups", []):
        assert wakeup.get("text", "") in text
    return text, data


def finished_and_noticed(job_id: str) -> None:
    store = JobStore()
    deadline = time.monotonic() + 60
    while not store.load(job_id).is_terminal:
        assert time.monotonic() < deadline, f"job {job_id} never ended"
        time.sleep(0.05)
    time.sleep(1.0)  # ten poller intervals: the server has noticed it


async def test_every_result_stands_alone_and_stays_small(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_fast_config({"poller": {"intervalMs": 100}})
    install_fake_codex(tmp_path / "bin")
    monkeypatch.setenv("PATH", path_with(tmp_path / "bin"))
    records = tmp_path / "records"
    records.mkdir()
    monkeypatch.setenv("FAKE_CODEX_RECORDS", str(records))
    hanging = submit(
        "hang",
        ["src"],
        caller=Caller(session=SESSION),
        provider="test",
        selection_extras={"outcome": "hang"},
    ).job["id"]
    seen: dict[str, tuple[str, dict[str, Any]]] = {}

    async def call(label: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        seen[label] = stands_alone(await client.call_tool(tool, arguments))
        return seen[label][1]

    request = {"prompt": PROMPT, "files": ["."], "provider": "test"}
    async with mcp_client(project, "--session", SESSION, "--profile", "all") as client:
        await call("preflight", "oracle_preflight", {"provider": "test"})
        await call("dry run", "oracle_submit", {**request, "dryRun": True})
        job_id = (await call("submit", "oracle_submit", request))["job"]["id"]
        await call("wait, not done", "oracle_wait", {"jobId": hanging, "timeoutSeconds": 1})
        await call("wait, done", "oracle_wait", {"jobId": job_id, "timeoutSeconds": 30})
        await call("read", "oracle_read", {"jobId": job_id})
        await call("status of a job", "oracle_status", {"jobId": job_id})
        await call("status list", "oracle_status", {})
        await call("cancel", "oracle_cancel", {"jobId": hanging})
        await call("presets", "oracle_presets", {})
        await call("unknown job", "oracle_read", {"jobId": "zzzzzzzz"})
        await call("bad argument", "oracle_submit", {**request, "preset": "bogus"})
        await call("refused address", "browser_fetch", {"url": "http://127.0.0.1/"})
        other = submit("other", ["src"], caller=Caller(session=SESSION), provider="test").job["id"]
        await anyio.to_thread.run_sync(finished_and_noticed, other)
        await call("wake-up carried", "oracle_status", {"jobId": job_id})
        started = await call("process start", "managed_process_start", SERVER)
        process = started["process"]["id"]
        await anyio.sleep(1.0)  # it has printed its line
        await call("process list", "managed_process_list", {})
        await call("process output", "managed_process_output", {"id": process})
        await call("process stop", "managed_process_stop", {"id": process})
        reminder = {"reentryPrompt": "Check whether the nightly build passed."}
        await call("schedule", "scheduler_submit", {**reminder, "timing": {"in": "1h"}})
        await call("codex search", "codex_search", {"prompt": "ok who wrote the parser?"})
        await call("notice by wait", "oracle_wait", {"timeoutSeconds": 30})

    sizes = {label: (len(text), json_size(data)) for label, (text, data) in seen.items()}
    too_big = {label: size for label, size in sizes.items() if size[1] > RATIO * size[0]}
    assert not too_big, {label: (too_big[label], seen[label]) for label in too_big}
    # What a model needs to act correctly, in the JSON alone:
    submitted = seen["submit"][1]
    assert submitted["nextStep"].startswith("Stop now:")
    open_wait = seen["wait, not done"][1]
    assert open_wait["done"] is False and "call `oracle_wait" in open_wait["nextStep"]
    done = seen["wait, done"][1]
    assert NOT_AN_INSTRUCTION in done["message"] and "oracle_read" in done["nextStep"]
    (carried,) = seen["wake-up carried"][1]["wakeups"]
    assert carried["jobId"] == other and NOT_AN_INSTRUCTION in carried["text"]
    (notice,) = seen["notice by wait"][1]["wakeups"]
    assert notice["kind"] == "codex_search" and NOT_AN_INSTRUCTION in notice["text"]
    assert "do not wait or poll" in seen["codex search"][1]["nextStep"]
