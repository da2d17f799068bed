"""The pi package never fails silently (issue 40 §5), with a real pi and the package installed.

The wake-up channel (`oraculum wakeups serve`) killed in a live session is restarted, the
footer says `wake-ups stopped` until it is back, and a job that ended meanwhile is still a
wake-up turn; tool calls go to one long-lived `oraculum bridge serve` child; the tools pi's
model is offered speak pi; a job the user cancelled starts no turn and an unread wake-up is
reminded once; an unknown profile is refused with a warning; an `/oracle-*` error fails a
print run.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import psutil
import pytest

from homes import write_fast_config
from oraculum.jobs.model import Status

from .conftest import HOLDABLE, StartModel
from .host_tools import HostTools
from .job_gates import HeldWorker, job_finished, only_job, until
from .pi_bridge_host import PiBridgeHost, RpcPi, bridge_results
from .scripted_model import Reply, ScriptedModel
from .test_pi_bridge import (
    PREFLIGHT,
    PROMPT,
    SCANS_S,
    SUBMIT,
    read_after_wakeup,
    wakeups_seen,
)

pytestmark = [pytest.mark.hosts, pytest.mark.slow]

STOPPED = "oracle: wake-ups stopped"


@pytest.fixture
def pi_bridge(host_tools: HostTools, project: Path, tmp_path: Path) -> PiBridgeHost:
    return PiBridgeHost(tools=host_tools, root=tmp_path / "pi", project=project, session="pi-r")


def oraculum_children(pi: RpcPi, *command: str) -> list[psutil.Process]:
    """pi's `oraculum <command…>` children (the package's long-lived ones)."""
    found = []
    for child in psutil.Process(pi.proc.pid).children(recursive=True):
        with contextlib.suppress(psutil.Error):
            argv = child.cmdline()
            if any(argv[i : i + len(command)] == list(command) for i in range(len(argv))):
                found.append(child)
    return found


@contextlib.asynccontextmanager
async def channel_kept_down(pi: RpcPi) -> AsyncIterator[list[int]]:
    """Kill the session's wake-up channel, and every restart of it, for the block's length;
    yields the pids killed."""
    killed: list[int] = []

    async def kill_each() -> None:
        while True:
            for child in oraculum_children(pi, "wakeups", "serve"):
                with contextlib.suppress(psutil.Error):
                    child.send_signal(signal.SIGKILL)
                    killed.append(child.pid)
            await asyncio.sleep(0.05)

    killer = asyncio.create_task(kill_each())
    try:
        yield killed
    finally:
        killer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await killer


async def first_run(pi: RpcPi, model: ScriptedModel) -> None:
    """`/oracle` up to its submit run's end (three model requests)."""
    await pi.send({"type": "prompt", "message": f"/oracle {PROMPT}"})
    await pi.until(lambda: len(model.requests) == 3 and pi.settled() >= 1, "the submit run")


async def test_rpc_a_killed_wakeup_channel_is_restarted_and_loses_nothing(
    pi_bridge: PiBridgeHost, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    """The job ends while no wake-up channel runs (each restart is killed too); once one is
    back the footer leaves `wake-ups stopped` and the job is one wake-up turn."""
    write_fast_config(HOLDABLE)
    held = HeldWorker()
    model = await scripted_model(
        [
            PREFLIGHT,
            SUBMIT,
            Reply("Submitted.", before=held.hold),
            read_after_wakeup(),
            Reply("It is 42."),
        ]
    )
    await pi_bridge.install(model.base_url)
    async with pi_bridge.rpc() as pi:
        await pi.until(lambda: bool(oraculum_children(pi, "wakeups", "serve")), "the channel")
        await first_run(pi, model)
        async with channel_kept_down(pi) as killed:
            await pi.until(lambda: STOPPED in pi.statuses("oracle"), "the footer to say so")
            held.release()
            await job_finished()
            await asyncio.sleep(SCANS_S)  # a live channel would have delivered it by now
            down = only_job()
        await pi.until(lambda: len(model.requests) == 5 and pi.settled() >= 2, "the wake-up turn")
        await pi.until(lambda: pi.statuses("oracle")[-1] != STOPPED, "the footer back")
        footer = pi.statuses("oracle")
        await asyncio.sleep(SCANS_S)  # room for a second (wrong) delivery

    assert killed, "no wake-up channel was killed"
    assert down.status == Status.COMPLETE and down.wakeup_attempt_count == 0
    job = only_job()
    assert job.wakeup_attempt_count == 1 and job.wakeup_settled_at is not None
    assert wakeups_seen(model, job.id) == 1 and model.overruns == 0
    assert footer.index(STOPPED) < len(footer) - 1 and footer[-1] == "oracle: auth needed"


async def test_rpc_tool_calls_go_to_one_long_lived_child(
    pi_bridge: PiBridgeHost, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    """Every tool call of the session (the footer's preflight, the model's calls) is answered
    by the same `oraculum bridge serve` process: no process per call."""
    servers: list[list[int]] = []
    pi_box: list[RpcPi] = []

    async def look() -> None:
        servers.append([p.pid for p in oraculum_children(pi_box[0], "bridge", "serve")])
        assert oraculum_children(pi_box[0], "bridge", "call") == []

    model = await scripted_model(
        [PREFLIGHT, SUBMIT, Reply("Submitted.", before=look), read_after_wakeup(), Reply("42.")]
    )
    await pi_bridge.install(model.base_url)
    async with pi_bridge.rpc() as pi:
        pi_box.append(pi)
        await pi.until(lambda: bool(pi.statuses("oracle")), "the footer")
        await look()
        await first_run(pi, model)
        await pi.until(lambda: len(model.requests) == 5 and pi.settled() >= 2, "the wake-up turn")
        await look()

    assert len(servers[0]) == 1 and servers.count(servers[0]) == len(servers), servers
    (submitted,) = bridge_results(model, "oracle_submit")
    assert only_job().id in submitted
    assert f"Test answer to: {PROMPT}" in bridge_results(model, "oracle_read")[0]


async def test_rpc_a_job_the_user_cancelled_starts_no_turn(
    pi_bridge: PiBridgeHost, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    write_fast_config(HOLDABLE)
    held = HeldWorker()
    model = await scripted_model([PREFLIGHT, SUBMIT, Reply("Submitted.", before=held.hold)])
    await pi_bridge.install(model.base_url)
    async with pi_bridge.rpc() as pi:
        await first_run(pi, model)
        shown = len(pi.notices())
        await pi.send({"type": "prompt", "message": f"/oracle-cancel {only_job().id}"})
        held.release()  # the worker takes the cancel
        await pi.until(lambda: len(pi.notices()) > shown, "/oracle-cancel")
        await until(lambda: only_job().wakeup_attempt_count >= 1, "the wake-up", 60)
        await asyncio.sleep(SCANS_S)  # room for a (wrong) turn
        cancelled = pi.notices()[-1]

    job = only_job()
    assert job.status == Status.CANCELLED, cancelled
    assert len(model.requests) == 3 and model.overruns == 0, "the cancellation started a turn"


async def test_rpc_an_unread_wakeup_is_reminded_at_most_once(
    pi_bridge: PiBridgeHost, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    """The model never reads the answer: oraculum offers the wake-up three times (0, 15 and
    60 s), pi shows the first and one reminder, each a turn, and commits the third unseen."""
    model = await scripted_model(
        [PREFLIGHT, SUBMIT, Reply("Submitted."), Reply("Noted."), Reply("Noted again.")]
    )
    await pi_bridge.install(model.base_url)
    async with pi_bridge.rpc() as pi:
        await first_run(pi, model)
        await until(lambda: only_job().wakeup_attempt_count >= 3, "the last reminder", 150)
        await asyncio.sleep(SCANS_S)  # room for a (wrong) third turn

    job = only_job()
    assert job.wakeup_attempt_count == 3 and job.wakeup_settled_at is None
    assert len(model.requests) == 5 and model.overruns == 0
    assert wakeups_seen(model, job.id) == 2


async def test_print_the_tools_speak_pi(
    pi_bridge: PiBridgeHost, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    """With every profile's tools: no oracle_wait or oracle_presets, outcomes arrive as a new
    message, browser_fetch has no background mode (it runs to its end)."""
    model = await scripted_model([Reply("Hello.")])
    await pi_bridge.install(model.base_url)

    code, _out, err = await pi_bridge.print_run("Hello", profile="all")

    assert code == 0, err[-3000:]
    tools = {t["function"]["name"]: t["function"] for t in model.requests[0]["tools"]}
    assert {"oracle_submit", "browser_fetch", "scheduler_submit"} <= set(tools)
    ours = ("oracle_", "browser_", "scheduler_", "managed_process_")
    offered = json.dumps([tool for name, tool in tools.items() if name.startswith(ours)])
    for words in ("oracle_wait", "oracle_presets", "tool result", "background: true"):
        assert words not in offered, words
    assert "background" not in tools["browser_fetch"]["parameters"]["properties"]
    assert "runs to its end" in tools["browser_fetch"]["description"]
    assert "arrives once as a new message" in tools["scheduler_submit"]["description"]
    assert "arrives as a new message" in tools["oracle_submit"]["description"]


async def test_print_an_unknown_profile_is_refused_with_a_warning(
    pi_bridge: PiBridgeHost, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    model = await scripted_model([Reply("Hello.")])
    await pi_bridge.install(model.base_url)

    code, _out, err = await pi_bridge.print_run("Hello", profile="everything")

    assert code == 0, err[-3000:]
    assert 'Warning: oraculum profile "everything" refused ([invalid_argument]' in err, err
    declared = {t["function"]["name"] for t in model.requests[0]["tools"]}
    assert "oracle_submit" in declared and "browser_fetch" not in declared


async def test_print_an_oracle_command_error_exits_non_zero(
    pi_bridge: PiBridgeHost, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    model = await scripted_model([])  # a command starts no model turn
    await pi_bridge.install(model.base_url)

    missing = await pi_bridge.print_run("/oracle-read 0000000000000")
    usage = await pi_bridge.print_run("/oracle-cancel")
    fine = await pi_bridge.print_run("/oracle-status")

    assert missing[0] != 0 and "[job_not_found]" in missing[2], missing
    assert usage[0] != 0 and "Usage: /oracle-cancel <job>" in usage[2], usage
    assert fine[0] == 0 and "No oracle jobs" in fine[2], fine
    assert model.requests == [] and model.overruns == 0
