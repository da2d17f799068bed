"""The MCP server end to end: the official SDK client over stdio, real workers (test provider)."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from oraculum.jobs.store import JobStore
from oraculum.mcp.bridge import BRIDGE_TOOLS

from .support import mcp_client, text_of

pytestmark = pytest.mark.slow

# The tools a bridge offers, and the two only MCP offers: the long poll and the preset list.
TOOLS = {*BRIDGE_TOOLS, "oracle_wait", "oracle_presets"}


async def test_tools_prompts_submit_wait_read(project: Path) -> None:
    async with mcp_client(project, "--session", "e2e") as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        assert tools == TOOLS
        prompts = {p.name for p in (await client.list_prompts()).prompts}
        assert prompts == {"oracle", "oracle-followup"}
        prompt = await client.get_prompt("oracle", {"request": "Review the parser"})
        text = prompt.messages[0].content.text
        assert "oracle_preflight immediately" in text and "at most two submit attempts" in text
        assert "Review the parser" in text

        ready = await client.call_tool("oracle_preflight", {"provider": "test"})
        assert not ready.is_error
        assert ready.structured_content["ready"] is True
        assert "Capacity: 0/2 active, 0/2 queued (global)." in text_of(ready)
        assert ready.structured_content["capacity"]["maxActive"] == 2
        assert ready.structured_content["session"]["sessionId"] == "e2e"

        submitted = await client.call_tool(
            "oracle_submit", {"prompt": "What is 6 x 7?", "files": ["."], "provider": "test"}
        )
        assert not submitted.is_error, text_of(submitted)
        job = submitted.structured_content["job"]
        assert job["status"] in ("submitted", "waiting")
        assert JobStore().load(job["id"]).session_id == "e2e"
        assert f"Oracle job {job['id']} dispatched" in text_of(submitted)
        assert submitted.structured_content["nextStep"].startswith("Stop now:")

        progress: list[tuple[float, float | None, str | None]] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append((value, total, message))

        waited = await client.call_tool(
            "oracle_wait",
            {"jobId": job["id"], "timeoutSeconds": 30},
            progress_callback=on_progress,
        )
        assert not waited.is_error, text_of(waited)
        assert waited.structured_content["done"] is True
        assert progress, "no progress notification arrived"
        assert all(total == 30 for _, total, _ in progress)
        assert job["id"] in (progress[0][2] or "")
        assert f"Oracle job {job['id']} is complete." in text_of(waited)
        assert f'oracle_read {{"jobId": "{job["id"]}"}}' in text_of(waited)

        read = await client.call_tool("oracle_read", {"jobId": job["id"]})
        assert not read.is_error
        assert "Test answer to: What is 6 x 7?" in text_of(read)
        assert read.structured_content["response"]["preview"] == "Test answer to: What is 6 x 7?\n"
        assert JobStore().load(job["id"]).wakeup_settled_at is not None

        resource = await client.read_resource(f"oraculum://jobs/{job['id']}/response")
        assert resource.contents[0].text == "Test answer to: What is 6 x 7?\n"


async def test_errors_are_tool_errors_with_codes(project: Path) -> None:
    async with mcp_client(project, "--session", "e2e-errors") as client:
        bad_preset = await client.call_tool(
            "oracle_submit", {"prompt": "q", "files": ["."], "preset": "bogus"}
        )
        assert bad_preset.is_error
        error = bad_preset.structured_content["error"]
        assert error["code"] == "invalid_argument" and "pro_extended" in error["allowedValues"]
        assert "Suggested next step:" in text_of(bad_preset)

        missing = await client.call_tool(
            "oracle_submit", {"prompt": "q", "files": ["nope.py"], "provider": "test"}
        )
        assert missing.is_error
        assert missing.structured_content["error"]["code"] == "archive_input_missing"
        assert "nope.py" in missing.structured_content["error"]["message"]  # named once

        cancel = await client.call_tool("oracle_cancel", {})
        assert cancel.is_error and cancel.structured_content["error"]["code"] == "invalid_argument"

        blocked = await client.call_tool("oracle_preflight", {})
        assert blocked.is_error
        assert blocked.structured_content["error"]["code"] == "auth_seed_profile_missing"
        assert "`oracle_auth" in text_of(blocked) and "oraculum auth" not in text_of(blocked)


async def test_generated_session_and_wakeups_in_results(project: Path) -> None:
    """Without --session the server is its own session; a finished job's wake-up rides on the
    next tool result."""
    async with mcp_client(project) as client:
        ready = await client.call_tool("oracle_preflight", {"provider": "test"})
        session = ready.structured_content["session"]
        assert session["generated"] is True and session["sessionId"].startswith("mcp-")
        submitted = await client.call_tool(
            "oracle_submit", {"prompt": "ping", "files": ["src"], "provider": "test"}
        )
        job_id = submitted.structured_content["job"]["id"]
        carried = None
        with anyio.fail_after(60):
            while carried is None:
                await anyio.sleep(0.3)
                result = await client.call_tool("oracle_presets", {})
                wakeups = (result.structured_content or {}).get("wakeups") or []
                carried = next((w for w in wakeups if w["jobId"] == job_id), None)
        assert carried["status"] == "complete" and carried["attempt"] == 1
        assert f"Oracle job {job_id} is complete." in text_of(result)
        assert "not an instruction" in carried["text"]
