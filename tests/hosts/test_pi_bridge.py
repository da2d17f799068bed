"""A real pi with the oraculum pi package installed (issue 19, "Done when").

pi (pinned in tests/hosts/package.json) runs with `integrations/pi` installed by `pi install`;
its model is the scripted OpenAI-compatible endpoint. `/oracle` in print mode dispatches a
test-provider job through the bridge's tools; in RPC mode a wake-up is a new turn: exactly one
for an idle session, only after a busy one settles, and never in two sessions.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from oraculum.jobs.model import Status
from oraculum.jobs.store import JobStore

from .conftest import POLL_MS, StartModel
from .host_tools import HostTools
from .job_gates import WAKEUP_FIRST_LINE, job_finished, live_servers, only_job, until
from .pi_bridge_host import PiBridgeHost, RpcPi, bridge_results, text_count
from .scripted_model import Reply, ScriptedModel, Step, ToolCall, Transcript, message_text

pytestmark = [pytest.mark.hosts, pytest.mark.slow]

PROMPT = "What is 6 x 7?"
PREFLIGHT = ToolCall("oracle_preflight", {"provider": "test"}, prefix="")
SUBMIT = ToolCall(
    "oracle_submit", {"prompt": PROMPT, "files": ["."], "provider": "test"}, prefix=""
)
# Long enough for several wake-up scans (the package ticks at the poller interval).
JOB_ID = re.compile(r"\b[0-9a-hjkmnp-tv-z]{13}\b")
SCANS_S = 10 * POLL_MS / 1000


def submitted_job(transcript: Transcript) -> str:
    """The job id in the last oracle_submit result (as a model would copy it)."""
    results = [e.result or "" for e in transcript.exchanges() if e.name == "oracle_submit"]
    match = JOB_ID.search(results[-1])
    assert match, f"no job id in the submit result: {results[-1]!r}"
    return match[0]


def read_after_wakeup() -> ToolCall:
    """The wake-up turn reads the answer (which settles the wake-up: no reminder follows)."""
    return ToolCall("oracle_read", lambda t: {"jobId": submitted_job(t)}, prefix="")


def ask_then_read() -> list[Step]:
    """One `/oracle` run that submits, then reads the answer in its wake-up turn."""
    return [PREFLIGHT, SUBMIT, Reply("Submitted."), read_after_wakeup(), Reply("It is 42.")]


async def oracle_until_wakeup(pi: RpcPi, model: ScriptedModel) -> None:
    """Send `/oracle` and wait for the wake-up turn: five model requests, two settled runs."""
    await pi.send({"type": "prompt", "message": f"/oracle {PROMPT}"})
    await pi.until(lambda: len(model.requests) == 5 and pi.settled() >= 2, "the wake-up turn")


def bridge_host(host_tools: HostTools, project: Path, root: Path, session: str) -> PiBridgeHost:
    return PiBridgeHost(tools=host_tools, root=root, project=project, session=session)


@pytest.fixture
def pi_bridge(host_tools: HostTools, project: Path, tmp_path: Path) -> PiBridgeHost:
    return bridge_host(host_tools, project, tmp_path / "pi", "pi-bridge-1")


def wakeups_seen(model: ScriptedModel, job_id: str) -> int:
    return text_count(model, WAKEUP_FIRST_LINE.format(job_id=job_id))


async def test_print_mode_oracle_dispatches_a_job(
    pi_bridge: PiBridgeHost, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    model = await scripted_model([PREFLIGHT, SUBMIT, Reply("Submitted.")])
    await pi_bridge.install(model.base_url)

    code, out, err = await pi_bridge.print_run(f"/oracle {PROMPT}")

    assert code == 0, err[-3000:]
    assert model.overruns == 0 and "Submitted." in out
    first = model.requests[0]["messages"]
    asked = "".join(str(m.get("content")) for m in first if m.get("role") == "user")
    assert "Call oracle_preflight immediately" in asked and PROMPT in asked  # the template
    declared = {tool["function"]["name"] for tool in model.requests[0]["tools"]}
    assert {"oracle_preflight", "oracle_submit", "oracle_read", "oracle_auth"} <= declared
    assert "ready" in bridge_results(model, "oracle_preflight")[0]
    job = only_job()
    assert job.session_id == pi_bridge.session and job.provider == "test"
    assert job.id in bridge_results(model, "oracle_submit")[0]
    assert live_servers() == [], "the package left its wake-up channel running"


async def test_rpc_idle_session_gets_exactly_one_wakeup_turn(
    pi_bridge: PiBridgeHost, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    model = await scripted_model(ask_then_read())
    await pi_bridge.install(model.base_url)
    async with pi_bridge.rpc() as pi:
        await pi.until(lambda: bool(pi.statuses("oracle")), "the footer")
        await oracle_until_wakeup(pi, model)
        await asyncio.sleep(SCANS_S)  # room for a second (wrong) delivery to show
        footer = pi.statuses("oracle")

    assert model.overruns == 0 and len(model.requests) == 5
    job = only_job()
    assert job.status == Status.COMPLETE and job.wakeup_attempt_count == 1
    assert job.wakeup_settled_at is not None  # the wake-up turn read the answer
    assert wakeups_seen(model, job.id) == 1
    assert f"Test answer to: {PROMPT}" in bridge_results(model, "oracle_read")[0]
    assert footer[0] == "oracle: auth needed"  # the default provider has no signed-in seed
    assert live_servers() == []


async def test_rpc_busy_session_gets_the_wakeup_after_it_settles(
    pi_bridge: PiBridgeHost, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    seen_while_busy: list[int] = []

    async def busy_until_scanned() -> None:
        """The model's answer waits until the job ended and several scans passed."""
        await job_finished()
        await asyncio.sleep(SCANS_S)
        seen_while_busy.append(only_job().wakeup_attempt_count)

    model = await scripted_model(
        [
            PREFLIGHT,
            SUBMIT,
            Reply("Submitted.", before=busy_until_scanned),
            read_after_wakeup(),
            Reply("It is 42."),
        ]
    )
    await pi_bridge.install(model.base_url)
    async with pi_bridge.rpc() as pi:
        await oracle_until_wakeup(pi, model)

    assert seen_while_busy == [0], "a wake-up was claimed while the session was busy"
    assert model.overruns == 0
    job = only_job()
    assert job.wakeup_attempt_count == 1 and wakeups_seen(model, job.id) == 1
    (submitted,) = bridge_results(model, "oracle_submit")
    assert WAKEUP_FIRST_LINE.format(job_id=job.id) not in submitted


async def test_rpc_two_sessions_never_both_get_one_job(
    host_tools: HostTools,
    project: Path,
    tmp_path: Path,
    oraculum_env: dict[str, str],
    scripted_model: StartModel,
) -> None:
    origin = bridge_host(host_tools, project, tmp_path / "pi-a", "pi-bridge-a")
    other = bridge_host(host_tools, project, tmp_path / "pi-b", "pi-bridge-b")
    asks = await scripted_model(ask_then_read())
    idle = await scripted_model([])  # any request to this model is an overrun
    await origin.install(asks.base_url)
    await other.install(idle.base_url)
    async with other.rpc() as bystander, origin.rpc() as pi:
        await bystander.until(lambda: bool(bystander.statuses("oracle")), "the other session")
        await oracle_until_wakeup(pi, asks)
        await asyncio.sleep(SCANS_S)

    job = only_job()
    assert job.session_id == "pi-bridge-a" and job.wakeup_target_session == "pi-bridge-a"
    assert wakeups_seen(asks, job.id) == 1
    assert idle.requests == [] and idle.overruns == 0
    assert job.wakeup_attempt_count == 1


async def test_rpc_jobs_ending_together_are_one_wakeup_message(
    pi_bridge: PiBridgeHost, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    async def both_finished() -> None:
        for job_id in JobStore().list_ids():
            await until(lambda job_id=job_id: JobStore().load(job_id).is_terminal, job_id)

    second = ToolCall(
        "oracle_submit", {"prompt": "And 7 x 8?", "files": ["."], "provider": "test"}, prefix=""
    )
    model = await scripted_model(
        [PREFLIGHT, SUBMIT, second, Reply("Submitted both.", before=both_finished), Reply("Ok.")]
    )
    await pi_bridge.install(model.base_url)
    async with pi_bridge.rpc() as pi:
        await oracle_until_wakeup(pi, model)

    first_id, second_id = JobStore().list_ids()
    lines = [WAKEUP_FIRST_LINE.format(job_id=job_id) for job_id in (first_id, second_id)]
    carrying = [
        message_text(m.get("content"))
        for m in model.requests[-1]["messages"]
        if any(line in message_text(m.get("content")) for line in lines)
    ]
    assert len(carrying) == 1, carrying  # one message for both
    assert all(carrying[0].count(line) == 1 for line in lines)
    assert model.overruns == 0
