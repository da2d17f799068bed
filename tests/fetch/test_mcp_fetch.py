"""`browser_fetch` over a real `oraculum mcp` server (stdio): refusals in the documented error
shape, and background mode returning at once and delivering exactly one notice (real Chromium:
the name `localhost` resolves to loopback, which the proxy refuses)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp.client.stdio import StdioServerParameters

from homes import write_fast_config
from mcp import Client
from oraculum.core.errors import OracleError
from oraculum.mcp.families.fetch import FetchSlots
from oraculum.tasks import Owner

ORACULUM = str(Path(sys.executable).with_name("oraculum"))


def _params(project: Path, session: str) -> StdioServerParameters:
    # browser_fetch belongs to the `research` capability profile.
    args = ["mcp", "--session", session, "--profile", "research"]
    return StdioServerParameters(
        command=ORACULUM, args=args, env=dict(os.environ), cwd=str(project)
    )


def test_at_most_four_fetches_per_session() -> None:
    slots = FetchSlots(4)
    mine, other = Owner("p" * 16, "a"), Owner("p" * 16, "b")
    for _ in range(4):
        slots.take(mine)
    with pytest.raises(OracleError) as caught:
        slots.take(mine)
    assert caught.value.code == "fetch_busy" and caught.value.retryable
    slots.take(other)  # another session has its own four
    slots.give_back(mine)
    slots.take(mine)


@pytest.mark.slow
async def test_refusals_are_tool_errors_in_the_documented_shape(project: Path) -> None:
    async with Client(_params(project, "fetcher")) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        tool = tools["browser_fetch"]
        assert tool.title == "Fetch a public web page" and "public web page" in tool.description
        assert tool.input_schema["required"] == ["url"]
        for name, prop in tool.input_schema["properties"].items():
            assert prop["title"] and prop["description"], name
        assert {"error", "wakeups", "markdown", "taskId"} <= set(tool.output_schema["properties"])
        assert tool.annotations.read_only_hint is True
        blocked = await client.call_tool("browser_fetch", {"url": "http://169.254.169.254/"})
        invalid = await client.call_tool("browser_fetch", {"url": "file:///etc/passwd"})
    assert blocked.is_error
    assert blocked.structured_content["error"]["code"] == "fetch_address_blocked"
    assert "link-local" in blocked.content[0].text
    assert invalid.is_error
    assert invalid.structured_content["error"]["code"] == "fetch_url_invalid"


@pytest.mark.slow
@pytest.mark.browser
async def test_background_returns_at_once_and_delivers_one_notice(project: Path) -> None:
    write_fast_config({"poller": {"intervalMs": 100}})
    async with Client(_params(project, "fetcher")) as client:
        started = await client.call_tool(
            "browser_fetch", {"url": "http://localhost:8080/", "background": True}
        )
        assert not started.is_error, started.content[0].text
        task_id = started.structured_content["taskId"]
        assert started.structured_content["background"] is True
        done = await client.call_tool("oracle_wait", {"timeoutSeconds": 45})
        later = await client.call_tool("oracle_presets", {})
    assert done.structured_content["done"] is True
    [notice] = done.structured_content["wakeups"]
    assert notice["kind"] == "fetch" and notice["status"] == "failed"
    assert task_id in notice["text"] and "is loopback" in notice["text"], notice
    assert "is loopback" in done.content[0].text
    assert "wakeups" not in later.structured_content  # delivered exactly once
