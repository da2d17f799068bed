"""`scheduler_submit` over MCP: the real `oraculum mcp` server and runner; the wake rides on a
later tool result of the same session."""

from __future__ import annotations

import anyio
import pytest

from oraculum.scheduler.store import Store

from ..mcp.support import mcp_client, text_of

pytestmark = pytest.mark.slow


async def test_submit_then_the_wake_arrives_in_a_later_result(sched) -> None:  # type: ignore[no-untyped-def]
    async with mcp_client(sched.root, "--session", "mcp-sched", "--profile", "scheduler") as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        assert "scheduler_submit" in tools

        bad = await client.call_tool(
            "scheduler_submit", {"reentryPrompt": "x", "timing": {"count": 2}}
        )
        assert bad.is_error
        assert bad.structured_content["error"]["code"] == "schedule_timing_invalid"
        relative = await client.call_tool(
            "scheduler_submit", {"reentryPrompt": "x", "payload": {"executable": "./tool"}}
        )
        assert relative.structured_content["error"]["code"] == "schedule_payload_invalid"
        assert Store().schedules() == []

        done = await client.call_tool(
            "scheduler_submit",
            {
                "reentryPrompt": "Summarise the listing.",
                "payload": {"executable": "/bin/echo", "args": ["listing-ok"], "cwd": "."},
                "timing": {"in": "1s"},
            },
        )
        assert not done.is_error, text_of(done)
        schedule = Store().schedule(done.structured_content["schedule"]["id"])
        assert schedule["session_id"] == "mcp-sched"
        assert schedule["payload"]["cwd"] == str(sched.root.resolve())
        assert "wakes this session once" in text_of(done)

        sched.wait_for(
            lambda: [o for o in Store().occurrences(schedule["id"]) if o["woken_at"]],
            what="the occurrence's wake",
        )
        carried = ""
        for _ in range(100):  # the server's poller picks the notice up within its interval
            result = await client.call_tool("oracle_status", {})
            carried = text_of(result)
            if "listing-ok" in carried:
                break
            await anyio.sleep(0.2)
        assert "Summarise the listing." in carried and "listing-ok" in carried
