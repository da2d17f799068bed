"""`oraculum subagent` from a shell on the real pinned pi: one waited-for turn, then its saved
conversation continued with --session; a bare model refused before launch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import StartModel
from .host_tools import HostTools
from .scripted_model import Reply
from .subagent_host import pi_environment

pytestmark = [pytest.mark.hosts, pytest.mark.slow]

ORACULUM = str(Path(sys.executable).with_name("oraculum"))


async def _run(project: Path, env: dict[str, str], *args: str) -> tuple[int, dict]:
    import asyncio

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [ORACULUM, "subagent", *args, "--json"],
            cwd=project,
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=240,
        )

    done = await asyncio.to_thread(run)  # the scripted model answers on this event loop
    return done.returncode, json.loads(done.stdout or "{}")


async def test_run_then_continue_the_saved_conversation(
    host_tools: HostTools, scripted_model: StartModel, project: Path, tmp_path: Path
) -> None:
    model = await scripted_model([Reply("one"), Reply("two")])
    env = pi_environment(host_tools, tmp_path / "pi", model.base_url)
    code, first = await _run(project, env, "First task", "--name", "cli")
    assert code == 0, first
    assert first["result"]["ok"] and "one" in first["result"]["text"]
    session = first["session"]
    assert Path(session).is_file()
    code, second = await _run(project, env, "Second task", "--session", session)
    assert code == 0, second
    assert "two" in second["result"]["text"] and second["session"] == session
    assert "First task" in json.dumps(model.requests[-1]["messages"])
    code, refused = await _run(project, env, "x", "--model", "bare")
    assert code == 2 and refused["error"]["code"] == "invalid_argument"
    assert len(model.requests) == 2  # nothing was launched for the refused call
