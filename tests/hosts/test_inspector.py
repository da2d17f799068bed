"""The official MCP Inspector CLI against `oraculum mcp` (issue 15, "A real host in CI").

The Inspector starts stdio servers with a reduced default environment, not its own: the
`ORACULUM_*` variables reach the server only through `-e` (a config's `env` map). The last
test shows that, which is why the README tells such clients to use the `env` map.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from oraculum.mcp.bridge import BRIDGE_TOOLS

from .host_tools import HostTools
from .pi_host import ORACULUM_VARIABLES, oraculum_executable

pytestmark = [pytest.mark.hosts, pytest.mark.slow]

# The tools a bridge offers, and the long poll only MCP offers.
ORACLE_TOOLS = {*BRIDGE_TOOLS, "oracle_wait"}
SESSION = "inspector-1"


def inspect(
    tools: HostTools,
    project: Path,
    home: Path,
    method: list[str],
    server_env: dict[str, str] | None,
) -> dict[str, Any]:
    """One Inspector CLI call; its JSON output. ``server_env`` is passed with `-e`; the
    Inspector's own environment always holds the test home's ORACULUM_* variables."""
    own_env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        **{name: os.environ[name] for name in ORACULUM_VARIABLES},
    }
    flags = [arg for key, value in (server_env or {}).items() for arg in ("-e", f"{key}={value}")]
    result = subprocess.run(
        [*tools.inspector, "--cli", *flags, str(oraculum_executable()), "mcp", *method],
        cwd=project,
        env=own_env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return json.loads(result.stdout)


@pytest.fixture
def inspector_home(tmp_path: Path) -> Path:
    home = tmp_path / "inspector-home"
    home.mkdir(mode=0o700)
    return home


@pytest.fixture
def server_env(oraculum_env: dict[str, str]) -> dict[str, str]:
    return {**oraculum_env, "ORACULUM_SESSION": SESSION}


def test_inspector_lists_tools_and_prompts(
    host_tools: HostTools, project: Path, inspector_home: Path, server_env: dict[str, str]
) -> None:
    tools = inspect(host_tools, project, inspector_home, ["--method", "tools/list"], server_env)[
        "tools"
    ]
    by_name = {tool["name"]: tool for tool in tools}
    assert set(by_name) >= ORACLE_TOOLS
    assert all(by_name[name]["inputSchema"]["type"] == "object" for name in ORACLE_TOOLS)
    assert all(by_name[name]["description"] for name in ORACLE_TOOLS)

    prompts = inspect(
        host_tools, project, inspector_home, ["--method", "prompts/list"], server_env
    )["prompts"]
    assert {"oracle", "oracle-followup"} <= {prompt["name"] for prompt in prompts}


def test_inspector_calls_preflight(
    host_tools: HostTools, project: Path, inspector_home: Path, server_env: dict[str, str]
) -> None:
    call = ["--method", "tools/call", "--tool-name", "oracle_preflight"]
    result = inspect(
        host_tools, project, inspector_home, [*call, "--tool-arg", "provider=test"], server_env
    )
    assert result["isError"] is False, result
    report = result["structuredContent"]
    assert report["ready"] is True
    assert report["session"]["sessionId"] == SESSION
    assert report["jobsDir"] == server_env["ORACULUM_JOBS_DIR"]
    assert "ready" in result["content"][0]["text"]


def test_inspector_does_not_pass_its_environment(
    host_tools: HostTools, project: Path, inspector_home: Path, server_env: dict[str, str]
) -> None:
    """Without `-e`, the server never sees the ORACULUM_* variables of the Inspector's own
    environment: it falls back to the default locations under HOME."""
    call = ["--method", "tools/call", "--tool-name", "oracle_preflight"]
    result = inspect(
        host_tools, project, inspector_home, [*call, "--tool-arg", "provider=test"], None
    )
    jobs_dir = result["structuredContent"]["jobsDir"]
    assert jobs_dir != server_env["ORACULUM_JOBS_DIR"]
    assert Path(jobs_dir).is_relative_to(inspector_home)
