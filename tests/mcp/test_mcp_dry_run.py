"""oracle_submit's dryRun and force through a real MCP client and server (issue 43 §2, §3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from oraculum.core.paths import jobs_dir
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.submit import submit

from .support import mcp_client, text_of

pytestmark = pytest.mark.slow

SESSION = "mcp-dry-run"
REQUEST = {"prompt": "Compare the two parsers.", "files": ["src"], "provider": "test"}


async def test_dry_run_returns_what_would_be_sent_and_creates_nothing(project: Path) -> None:
    async with mcp_client(project, "--session", SESSION) as client:
        result = await client.call_tool(
            "oracle_submit", {**REQUEST, "preset": "thinking_heavy", "dryRun": True}
        )
        assert not result.is_error, text_of(result)
        dry = result.structured_content["dryRun"]
        assert "job" not in result.structured_content
        assert dry["prompt"] == REQUEST["prompt"]
        assert dry["provider"] == {"chosen": "test", "requested": "test", "from": "argument"}
        assert dry["preset"] == {
            "chosen": "thinking_heavy",
            "requested": "thinking_heavy",
            "from": "argument",
        }
        assert dry["archive"]["fileCount"] == 1
        assert dry["estimatedTokens"]["total"] == (
            dry["estimatedTokens"]["prompt"] + dry["estimatedTokens"]["archive"]
        )
        assert dry["capacity"] == {"active": 0, "maxActive": 2, "queued": 0, "maxQueued": 2}
        text = text_of(result)
        assert "Capacity: 0/2 active, 0/2 queued (global)." in text
        assert "without dryRun" in result.structured_content["nextStep"]
        assert text.startswith("Dry run: nothing was sent and no job was created.")
        assert text.endswith("Prompt as it will be typed:\nCompare the two parsers.")
    assert list(jobs_dir().iterdir()) == []  # no job, no staging


async def test_duplicate_is_a_tool_error_naming_the_job_unless_forced(project: Path) -> None:
    running = submit(
        REQUEST["prompt"],
        REQUEST["files"],
        caller=Caller(cwd=project, session=SESSION),
        provider="test",
        selection_extras={"outcome": "hang"},
    ).job["id"]
    async with mcp_client(project, "--session", SESSION) as client:
        refused = await client.call_tool("oracle_submit", REQUEST)
        assert refused.is_error
        error = refused.structured_content["error"]
        assert error["code"] == "duplicate_job" and error["details"]["jobId"] == running
        # The next step in the agent's terms: its tools, and force: true.
        step = error["suggestedNextStep"]
        assert f'oracle_wait {{"jobId": "{running}"}}' in step and "force: true" in step
        assert JobStore().list_ids() == [running]

        dry = await client.call_tool("oracle_submit", {**REQUEST, "dryRun": True})
        assert dry.structured_content["dryRun"]["duplicateOf"] == running
        assert "force: true sends it again" in text_of(dry)

        forced = await client.call_tool("oracle_submit", {**REQUEST, "force": True})
        assert not forced.is_error, text_of(forced)
        assert forced.structured_content["job"]["id"] != running
