"""The subagent tools over a real `oraculum mcp` server (stdio), pi on its PATH pointed at the
scripted endpoint: a pong delivered exactly once by the wake-up machinery, the tool shapes,
refusals as tool errors, and the session's end stopping an active child."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import psutil
import pytest
from mcp.client.stdio import StdioServerParameters

from homes import write_fast_config
from mcp import Client
from oraculum.core.project import project_id
from oraculum.tasks import NoticeStore

from .conftest import StartModel
from .host_tools import HostTools
from .scripted_model import Reply
from .subagent_host import MODEL, Gate, pi_children, pi_environment, until

pytestmark = [pytest.mark.hosts, pytest.mark.slow]

ORACULUM = str(Path(sys.executable).with_name("oraculum"))


def _params(project: Path, env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(
        command=ORACULUM,
        args=["mcp", "--session", "orchestrator", "--profile", "subagents"],
        env={**os.environ, **env},
        cwd=str(project),
    )


async def test_a_pong_is_delivered_once_and_the_tools_answer_in_shape(
    host_tools: HostTools, scripted_model: StartModel, project: Path, tmp_path: Path
) -> None:
    write_fast_config({"poller": {"intervalMs": 100}})
    model = await scripted_model([Reply("the child's report")])
    env = pi_environment(host_tools, tmp_path / "pi", model.base_url)
    async with Client(_params(project, env)) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert {
            f"subagent_{n}" for n in ("start", "continue", "steer", "interrupt", "list")
        } <= names
        bare = await client.call_tool("subagent_start", {"prompt": "x", "model": "gpt-5"})
        started = await client.call_tool(
            "subagent_start", {"prompt": "Report", "name": "reporter", "model": MODEL}
        )
        assert not started.is_error, started.content[0].text
        assert started.structured_content["id"] == "1"
        assert "do not sleep, wait or poll" in started.content[0].text
        for _ in range(3):  # the child's turn ends within one wait unless the machine crawls
            done = await client.call_tool("oracle_wait", {"timeoutSeconds": 50})
            if "wakeups" in done.structured_content:
                break
        listed = await client.call_tool("subagent_list", {})
        idle = await client.call_tool("subagent_steer", {"id": "1", "message": "late"})
        unknown = await client.call_tool("subagent_interrupt", {"id": "9"})
    assert bare.is_error and bare.structured_content["error"]["code"] == "invalid_argument"
    assert "wakeups" in done.structured_content, (done.content[0].text, started.content[0].text)
    [pong] = done.structured_content["wakeups"]
    assert pong["kind"] == "subagent" and pong["status"] == "complete"
    assert "the child's report" in done.content[0].text
    assert "wakeups" not in listed.structured_content  # delivered exactly once
    [row] = listed.structured_content["subagents"]
    assert row["name"] == "reporter" and row["state"] == "idle" and Path(row["session"]).is_file()
    assert idle.is_error and idle.structured_content["error"]["code"] == "subagent_idle"
    assert unknown.is_error and unknown.structured_content["error"]["code"] == "subagent_not_found"


async def test_the_session_end_stops_an_active_child(
    host_tools: HostTools, scripted_model: StartModel, project: Path, tmp_path: Path
) -> None:
    gate = Gate()
    model = await scripted_model([Reply("never", before=gate)])
    env = pi_environment(host_tools, tmp_path / "pi", model.base_url)
    async with Client(_params(project, env)) as client:
        started = await client.call_tool("subagent_start", {"prompt": "Hold", "wait": False})
        assert not started.is_error, started.content[0].text
        await until(lambda: len(model.requests) == 1)
        [child] = pi_children()  # the server's child while the server runs
    gate.open()
    notices = list(NoticeStore().notices(project_id(project)))
    [pong] = [n for n in notices if n.kind == "subagent"]
    assert pong.data["status"] == "interrupted" and "owning session ended" in pong.text
    assert not child.is_running() or child.status() == psutil.STATUS_ZOMBIE
    await asyncio.sleep(0)  # the held request has been answered to a closed connection
