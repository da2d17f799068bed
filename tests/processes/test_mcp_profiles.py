"""Capability profiles through the official MCP SDK client: each profile lists exactly its
tools, a tool outside it cannot be called, and --list-profiles says the same as the servers."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from mcp import Client
from oraculum.mcp.bridge import BRIDGE_TOOLS
from oraculum.mcp.profiles import PROFILES

from .mcp_support import ORACULUM, server

pytestmark = pytest.mark.slow

# The tools a bridge offers, and the two only MCP offers: the long poll and the preset list.
ORACLE_TOOLS = {*BRIDGE_TOOLS, "oracle_wait", "oracle_presets"}
PROCESS_TOOLS = {
    "managed_process_start",
    "managed_process_list",
    "managed_process_output",
    "managed_process_stop",
}


def _listed_profiles(project: Path) -> dict[str, set[str]]:
    done = subprocess.run(
        [ORACULUM, "--json", "mcp", "--list-profiles"],
        capture_output=True,
        text=True,
        cwd=project,
        check=True,
        timeout=60,
    )
    return {row["name"]: set(row["tools"]) for row in json.loads(done.stdout)["profiles"]}


async def _tools(project: Path, *args: str) -> set[str]:
    async with Client(server(project, *args)) as client:
        return {tool.name for tool in (await client.list_tools()).tools}


async def test_the_default_is_the_oracle_alone(project: Path) -> None:
    assert await _tools(project) == ORACLE_TOOLS


async def test_every_profile_lists_what_list_profiles_says(project: Path) -> None:
    listed = _listed_profiles(project)
    assert set(listed) == set(PROFILES)
    assert listed["oracle"] == ORACLE_TOOLS
    assert listed["processes"] == ORACLE_TOOLS | PROCESS_TOOLS
    assert listed["all"] >= ORACLE_TOOLS | PROCESS_TOOLS
    for name, tools in listed.items():
        assert await _tools(project, "--profile", name) == tools, name


async def test_a_tool_outside_the_profile_is_not_callable(project: Path) -> None:
    async with Client(server(project)) as client:
        refused = await client.call_tool("managed_process_list", {})
        assert refused.is_error
    async with Client(server(project, "--profile", "processes")) as client:
        allowed = await client.call_tool("managed_process_list", {})
        assert not allowed.is_error


def test_an_unknown_profile_is_refused(project: Path) -> None:
    done = subprocess.run(
        [ORACULUM, "--json", "mcp", "--profile", "everything"],
        capture_output=True,
        text=True,
        cwd=project,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert json.loads(done.stdout)["error"]["code"] == "invalid_argument"
