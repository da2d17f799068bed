"""The pi bridge offers a capability profile's tools (issues 21 and 22): those that finish
within the call or hand what outlives it to a durable owner. Managed processes started
through separate `oraculum bridge call` processes live in the session's supervisor, so a later
call sees and stops them; background mode, which needs a live server, is refused."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from oraculum.mcp.bridge import BRIDGE_FAMILY_TOOLS, BRIDGE_TOOLS

from .support import alive, until

pytestmark = pytest.mark.slow  # real oraculum processes

ORACULUM = str(Path(sys.executable).with_name("oraculum"))
SESSION = "pi-bridge-procs"
SLEEPER = ["-u", "-c", "import time; print('ready', flush=True); time.sleep(60)"]


def bridge(project: Path, *args: str, arguments: dict[str, Any] | None = None) -> Any:
    argv = [ORACULUM, "--json", "bridge", *args]
    if args[0] == "call":
        argv += ["--session", SESSION]
    done = subprocess.run(
        argv,
        input=json.dumps(arguments or {}),
        capture_output=True,
        text=True,
        cwd=project,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def tools(project: Path, profile: str) -> set[str]:
    return {tool["name"] for tool in bridge(project, "describe", "--profile", profile)["tools"]}


@pytest.fixture(autouse=True)
def shut_down(project: Path) -> Any:
    yield
    subprocess.run(
        [ORACULUM, "--json", "proc", "shutdown", "--session", SESSION],
        cwd=project,
        capture_output=True,
        timeout=60,
    )


def test_each_profile_offers_its_bridgeable_tools(project: Path) -> None:
    oracle = set(BRIDGE_TOOLS)
    assert tools(project, "oracle") == oracle
    assert tools(project, "research") == oracle | {"browser_fetch"}  # not codex_search
    assert tools(project, "processes") == oracle | {
        "managed_process_start",
        "managed_process_list",
        "managed_process_output",
        "managed_process_stop",
    }
    assert tools(project, "scheduler") == oracle | {"scheduler_submit"}
    assert tools(project, "subagents") == oracle  # subagents need a live server
    assert tools(project, "all") == oracle | BRIDGE_FAMILY_TOOLS


def test_an_unknown_profile_is_refused(project: Path) -> None:
    done = subprocess.run(
        [ORACULUM, "--json", "bridge", "describe", "--profile", "everything"],
        capture_output=True,
        text=True,
        cwd=project,
        timeout=60,
    )
    assert done.returncode != 0
    assert json.loads(done.stdout)["error"]["code"] == "invalid_argument"


def test_processes_started_through_the_bridge_outlive_the_call(project: Path) -> None:
    start = {"executable": sys.executable, "args": SLEEPER}
    started = bridge(project, "call", "managed_process_start", "--profile", "processes",
                     arguments=start)  # fmt: skip
    assert started["isError"] is False, started["text"]
    record = started["data"]["process"]
    assert record["state"] == "running" and alive(record["pid"])

    def output() -> str:
        shown = bridge(project, "call", "managed_process_output", "--profile", "processes",
                       arguments={"id": record["id"]})  # fmt: skip
        return str(shown["data"].get("stdout", ""))

    until(lambda: "ready" in output(), "the child's output through a later call", 30)
    listed = bridge(project, "call", "managed_process_list", "--profile", "processes")
    assert [p["id"] for p in listed["data"]["processes"]] == [record["id"]]
    stopped = bridge(project, "call", "managed_process_stop", "--profile", "processes",
                     arguments={"id": record["id"]})  # fmt: skip
    assert stopped["isError"] is False and not alive(record["pid"])


def test_a_tool_outside_the_profile_is_not_callable(project: Path) -> None:
    start = {"executable": sys.executable, "args": SLEEPER}
    refused = bridge(project, "call", "managed_process_start", arguments=start)  # oracle profile
    assert refused["isError"] is True
    assert refused["data"]["error"]["code"] == "invalid_argument"


def test_background_mode_is_refused_through_the_bridge(project: Path) -> None:
    asked = {"url": "https://example.com/", "background": True}
    refused = bridge(project, "call", "browser_fetch", "--profile", "research", arguments=asked)
    assert refused["isError"] is True
    assert refused["data"]["error"]["code"] == "invalid_argument"
    assert "background" in refused["text"]
