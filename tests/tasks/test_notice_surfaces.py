"""A notice reaches the agent like a job's wake-up: through `oraculum mcp`, carried by the next
tool result (text and structured `wakeups`) once and then settled; through `oraculum wait`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp.client.stdio import StdioServerParameters

from homes import write_fast_config
from mcp import Client
from oraculum.core.project import project_id
from oraculum.tasks import NoticeStore

from .support import notice_for

pytestmark = pytest.mark.slow

ORACULUM = str(Path(sys.executable).with_name("oraculum"))


def _params(project: Path, session: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=ORACULUM,
        args=["mcp", "--session", session],
        env=dict(os.environ),
        cwd=str(project),
    )


async def test_the_next_tool_result_carries_the_notice_once(project: Path) -> None:
    write_fast_config({"poller": {"intervalMs": 100}})
    async with Client(_params(project, "agent")) as client:
        notice = notice_for(project, "agent", title="fetched example.org", text="12 bytes")
        first = await client.call_tool("oracle_presets", {})
        text = "\n".join(block.text for block in first.content)
        assert "Background fetch task src-1: fetched example.org" in text and "12 bytes" in text
        [carried] = first.structured_content["wakeups"]
        assert carried["noticeId"] == notice.id and carried["kind"] == "fetch"
        assert NoticeStore().ids(project_id(project)) == []
        second = await client.call_tool("oracle_presets", {})
        assert "wakeups" not in second.structured_content


async def test_oracle_wait_ends_on_a_notice(project: Path) -> None:
    write_fast_config({"poller": {"intervalMs": 100}})
    async with Client(_params(project, "agent")) as client:
        notice = notice_for(project, "agent", title="searched")
        result = await client.call_tool("oracle_wait", {"timeoutSeconds": 10})
        assert result.structured_content["done"] is True
        assert [w["noticeId"] for w in result.structured_content["wakeups"]] == [notice.id]


def test_oraculum_wait_prints_a_notice_and_settles_it(project: Path) -> None:
    notice = notice_for(project, "shell", title="searched", text="3 hits")
    done = subprocess.run(
        [ORACULUM, "wait", "--session", "shell", "--timeout", "20"],
        capture_output=True,
        text=True,
        cwd=project,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "Background fetch task src-1: searched" in done.stdout and "3 hits" in done.stdout
    assert NoticeStore().load(notice.project_id, notice.id) is None
