"""A capability profile in a real pi (issues 21, 22): with `--oraculum-profile processes` the
pi package offers the managed-process tools, a process it starts outlives the tool call, and
the pi session's end stops it."""

from __future__ import annotations

import sys
from pathlib import Path

import psutil
import pytest

from .conftest import StartModel
from .host_tools import HostTools
from .pi_bridge_host import PiBridgeHost, bridge_results
from .scripted_model import Reply, ToolCall

pytestmark = [pytest.mark.hosts, pytest.mark.slow]

SLEEPER = ["-u", "-c", "import time; print('ready', flush=True); time.sleep(120)"]


class ProfiledPi(PiBridgeHost):
    def argv(self, *mode: str, persisted: bool = True) -> list[str]:
        return [*super().argv(*mode, persisted=persisted), "--oraculum-profile", "processes"]


@pytest.fixture
def pi_bridge(host_tools: HostTools, project: Path, tmp_path: Path) -> ProfiledPi:
    return ProfiledPi(tools=host_tools, root=tmp_path / "pi", project=project, session="pi-p")


def sleepers() -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter(["cmdline"]):
        if (process.info["cmdline"] or [])[1:] == SLEEPER:
            found.append(process)
    return found


async def test_a_profiles_process_outlives_the_call_and_the_session_end_stops_it(
    pi_bridge: ProfiledPi, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    start = {"executable": sys.executable, "args": SLEEPER}
    model = await scripted_model(
        [ToolCall("managed_process_start", start, prefix=""), Reply("Started.")]
    )
    await pi_bridge.install(model.base_url)
    async with pi_bridge.rpc() as pi:
        await pi.send({"type": "prompt", "message": "Start the sleeper."})
        await pi.until(lambda: len(model.requests) == 2 and pi.settled() >= 1, "the tool call")
        [result] = bridge_results(model, "managed_process_start")
        assert "error" not in result.lower()[:20], result
        running = sleepers()
        assert len(running) == 1 and running[0].is_running(), result  # outlived the call
    # pi has exited: its session_shutdown stopped the session's processes.
    running[0].wait(timeout=30)
    assert sleepers() == []
