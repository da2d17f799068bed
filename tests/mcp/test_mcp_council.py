"""oracle_council through a real MCP client and server (issue 43 §1): a council of test
members returns at once with its id; its one wake-up rides a later tool result (never one per
member); oracle_status, oracle_wait and oracle_read take the council id; dryRun sends nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from homes import write_fast_config
from oraculum.core.paths import jobs_dir

from .support import mcp_client, text_of

pytestmark = pytest.mark.slow

SESSION = "mcp-council"
MEMBERS = ["test:instant", "test:thinking_heavy"]


async def test_council_one_wakeup_and_the_council_tools(project: Path) -> None:
    write_fast_config({"poller": {"intervalMs": 100}})
    request = {"prompt": "Which is right?", "files": ["src"], "members": MEMBERS}
    async with mcp_client(project, "--session", SESSION) as client:
        dry = await client.call_tool("oracle_council", {**request, "dryRun": True})
        assert not dry.is_error, text_of(dry)
        assert dry.structured_content["dryRun"]["members"] == MEMBERS
        assert len(dry.structured_content["dryRun"]["archives"]) == 1
        assert not (jobs_dir() / "councils").exists()

        started = await client.call_tool("oracle_council", request)
        assert not started.is_error, text_of(started)
        council = started.structured_content["council"]
        council_id = council["id"]
        assert [m["name"] for m in council["members"]] == MEMBERS
        assert "Stop now: one wake-up arrives" in text_of(started)

        waited = await client.call_tool("oracle_wait", {"jobId": council_id, "timeoutSeconds": 50})
        assert not waited.is_error, text_of(waited)
        assert waited.structured_content["council"]["ended"] is True
        # The council's one notice (members never wake anyone) rides this or the next result.
        status = await client.call_tool("oracle_status", {"jobId": council_id})
        wakeups = [
            w
            for result in (waited, status)
            for w in (result.structured_content or {}).get("wakeups", [])
        ]
        kinds = [w.get("kind") for w in wakeups]
        assert kinds.count("council") <= 1 and "oracle" not in kinds, wakeups

        read = await client.call_tool("oracle_read", {"jobId": council_id})
        assert not read.is_error, text_of(read)
        assert f"# Council {council_id}" in text_of(read)
        assert "## test:instant" in text_of(read) and "## test:thinking_heavy" in text_of(read)

        refused = await client.call_tool(
            "oracle_council", {**request, "members": ["test:instant", "test:instant"]}
        )
        assert refused.is_error
        assert refused.structured_content["error"]["code"] == "council_member_duplicate"
