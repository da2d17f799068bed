"""The managed-process tools through the official MCP SDK client: start, list, output, stop,
refusals in the documented error shape, and everything stopped when the server (the session)
ends."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from mcp import Client

from .mcp_support import server
from .support import alive, until

pytestmark = pytest.mark.slow

SLEEPER = "import time; print('ready', flush=True); time.sleep(60)"


async def _wait_ready(client: Client, process_id: str) -> dict:
    for _ in range(200):
        result = await client.call_tool("managed_process_output", {"id": process_id})
        if "ready" in result.structured_content["stdout"]:
            return result.structured_content
        await anyio.sleep(0.05)
    raise AssertionError("the process never printed ready")


async def test_start_list_output_stop(project: Path) -> None:
    async with Client(server(project, "--profile", "processes")) as client:
        started = await client.call_tool(
            "managed_process_start", {"executable": sys.executable, "args": ["-c", SLEEPER]}
        )
        assert not started.is_error
        record = started.structured_content["process"]
        assert record["state"] == "running" and f" in {project}." in started.content[0].text
        out = await _wait_ready(client, record["id"])
        assert out["stdoutOmittedBytes"] == 0
        listed = await client.call_tool("managed_process_list", {})
        assert [p["id"] for p in listed.structured_content["processes"]] == [record["id"]]
        stopped = await client.call_tool("managed_process_stop", {"id": record["id"]})
        assert stopped.structured_content["process"]["state"] == "signaled"
        assert not alive(record["pid"])


async def test_refusals_are_tool_errors_with_codes(project: Path) -> None:
    async with Client(server(project, "--profile", "processes")) as client:
        missing = await client.call_tool("managed_process_stop", {"id": "proc-99"})
        assert missing.is_error
        assert missing.structured_content["error"]["code"] == "process_not_found"
        huge = await client.call_tool(
            "managed_process_start", {"executable": sys.executable, "args": ["x" * 8001]}
        )
        assert huge.structured_content["error"]["code"] == "process_argv_too_large"


async def test_the_session_end_stops_its_processes(project: Path) -> None:
    async with Client(server(project, "--profile", "processes")) as client:
        started = await client.call_tool(
            "managed_process_start", {"executable": sys.executable, "args": ["-c", SLEEPER]}
        )
        record = started.structured_content["process"]
        await _wait_ready(client, record["id"])
        assert alive(record["pid"])
    until(lambda: not alive(record["pid"]), "the process stopped with its session")
