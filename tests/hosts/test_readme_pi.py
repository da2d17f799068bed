"""The README's pi set-up, followed literally with the pinned pi: its `pi mcp add` command
writes its JSON entry, and that entry (placeholders filled in) serves a real pi run."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from .conftest import StartModel
from .host_tools import HostTools
from .job_gates import only_job
from .pi_host import PiHost, oraculum_executable
from .scripted_model import Reply, ToolCall

pytestmark = [pytest.mark.hosts, pytest.mark.slow]

README = Path(__file__).parents[2] / "README.md"
PLACEHOLDER = "oraculum"  # on PATH; pi_host puts this checkout's path in its place


def pi_section() -> str:
    section = README.read_text().split("## 4. Wire it into your agent", 1)[1].split("\n## ", 1)[0]
    return section.split("**pi** ", 1)[1].split("**pi-mcp-adapter**", 1)[0]


def readme_pi_entry() -> dict[str, Any]:
    (block,) = re.findall(r"```json\n(.*?)```", pi_section(), flags=re.S)
    return json.loads(block)["mcpServers"]["oraculum"]


def readme_pi_add_command() -> list[str]:
    (block,) = re.findall(r"```sh\n(.*?)```", pi_section(), flags=re.S)
    return shlex.split(block)


def test_readme_pi_mcp_add_writes_the_readme_entry(host_tools: HostTools, tmp_path: Path) -> None:
    argv = readme_pi_add_command()
    assert argv[:3] == ["pi", "mcp", "add"]
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "PI_OFFLINE": "1"}
    subprocess.run(
        [*host_tools.pi, *argv[1:]], env=env, cwd=tmp_path, check=True, capture_output=True
    )
    written = json.loads((home / ".pi" / "agent" / "mcp.json").read_text())
    entry = readme_pi_entry()
    assert written["mcpServers"]["oraculum"] == {k: v for k, v in entry.items() if k != "env"}


async def test_readme_pi_entry_serves_a_pi_run(
    pi_host: PiHost, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    """The entry as written, its placeholders replaced by this checkout's path and the test
    home's directories: pi declares the tools directly and the `env` map reaches the server."""
    entry = readme_pi_entry()
    assert entry["command"] == PLACEHOLDER and entry["args"] == ["mcp"]
    assert set(entry["env"]) <= set(oraculum_env), "the README names an unknown variable"
    env = {name: oraculum_env[name] for name in entry["env"]}
    fields = {k: v for k, v in entry.items() if k not in ("command", "args", "env")}
    model = await scripted_model(
        [
            ToolCall("oracle_preflight", {"provider": "test"}),
            ToolCall("oracle_submit", {"prompt": "hello", "files": ["."], "provider": "test"}),
            Reply("Submitted."),
        ]
    )
    pi_host.configure(model.base_url, env, stable_session=False, **fields)
    assert json.loads((pi_host.agent_dir / "mcp.json").read_text())["mcpServers"]["oraculum"][
        "command"
    ] == str(oraculum_executable())

    run = await pi_host.run("Consult the oracle.")

    assert run.returncode == 0, run.stderr[-3000:]
    declared = {tool["function"]["name"] for tool in model.requests[0]["tools"]}
    assert "mcp__oraculum__oracle_submit" in declared
    assert [e["isError"] for e in run.tool_ends()] == [False, False]
    assert only_job().session_id.startswith("mcp-")  # no ORACULUM_SESSION: a generated one
