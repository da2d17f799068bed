"""The pi package's commands and refusals with a real pi (issue 19): the slash commands reach
oraculum, a job its session read first is settled without a wake-up turn, and a session pi does
not persist is refused."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from oraculum.jobs.store import JobStore

from .conftest import StartModel
from .host_tools import HostTools
from .job_gates import job_finished, only_job
from .pi_bridge_host import PiBridgeHost, bridge_results
from .scripted_model import Reply, ToolCall
from .test_pi_bridge import (
    PREFLIGHT,
    PROMPT,
    SCANS_S,
    SUBMIT,
    ask_then_read,
    oracle_until_wakeup,
    read_after_wakeup,
)

pytestmark = [pytest.mark.hosts, pytest.mark.slow]


@pytest.fixture
def pi_bridge(host_tools: HostTools, project: Path, tmp_path: Path) -> PiBridgeHost:
    return PiBridgeHost(tools=host_tools, root=tmp_path / "pi", project=project, session="pi-c")


async def test_read_first_settles_without_a_wakeup_turn(
    pi_bridge: PiBridgeHost, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    """The turn that submitted reads the answer once the job ended: no turn follows."""
    read = read_after_wakeup()
    model = await scripted_model(
        [
            PREFLIGHT,
            SUBMIT,
            ToolCall(read.tool, read.arguments, before=job_finished, prefix=""),
            Reply("It is 42."),
        ]
    )
    await pi_bridge.install(model.base_url)
    async with pi_bridge.rpc() as pi:
        await pi.send({"type": "prompt", "message": f"/oracle {PROMPT}"})
        await pi.until(lambda: len(model.requests) == 4 and pi.settled() >= 1, "the first run")
        await asyncio.sleep(SCANS_S)  # room for a (wrong) wake-up turn

    assert len(model.requests) == 4 and model.overruns == 0
    job = only_job()
    assert job.wakeup_settled_at is not None and job.wakeup_attempt_count == 0


async def test_slash_commands_reach_oraculum(
    pi_bridge: PiBridgeHost, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    model = await scripted_model(ask_then_read())
    await pi_bridge.install(model.base_url)
    async with pi_bridge.rpc() as pi:
        await oracle_until_wakeup(pi, model)
        job_id = only_job().id
        for command in ("/oracle-status", f"/oracle-read {job_id}", "/oracle-cancel"):
            shown = len(pi.notices())
            await pi.send({"type": "prompt", "message": command})
            await pi.until(lambda shown=shown: len(pi.notices()) > shown, command)
        shown = len(pi.notices())
        await pi.send({"type": "prompt", "message": f"/oracle-clean {job_id}"})
        await pi.until(lambda: len(pi.notices()) > shown, "/oracle-clean")
        status, answer, usage, cleaned = pi.notices()[-4:]

    assert job_id in status
    assert f"Test answer to: {PROMPT}" in answer
    assert usage.startswith("Usage: /oracle-cancel <job>")  # never guessed
    # Read above, so nobody needs its files any more: clean removes them at once (issue 38 §8).
    assert cleaned.startswith("Removed 1 oracle job directory"), cleaned
    assert JobStore().list_ids() == []
    assert len(model.requests) == 5, "a command started a model turn"


async def test_a_session_pi_does_not_persist_is_refused(
    pi_bridge: PiBridgeHost, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    model = await scripted_model([PREFLIGHT, Reply("Not ready.")])
    await pi_bridge.install(model.base_url)

    code, _out, err = await pi_bridge.print_run(f"/oracle {PROMPT}", persisted=False)

    assert code == 0, err[-3000:]
    (refused,) = bridge_results(model, "oracle_preflight")
    assert refused.startswith("[persisted_session_required] "), refused
    assert JobStore().list_ids() == []
