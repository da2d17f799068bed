"""Wake-ups through the MCP server (issue 15 §2-4, §10): delivered only by a returned result,
once per job and result, said once, and announced only to subscribers."""

from __future__ import annotations

import json
import sys
import time
from datetime import timedelta
from pathlib import Path

import anyio
import pytest
from mcp.types import ResourceUpdatedNotification

from homes import write_fast_config
from mcp import Client
from oraculum.jobs.store import JobStore
from oraculum.mcp.server import JOB_URI, OracleMcp, build_server
from oraculum.service.caller import Caller
from oraculum.service.submit import submit

from .support import mcp_client, text_of

pytestmark = pytest.mark.slow

POLL_MS = 100


@pytest.fixture(autouse=True)
def fast_poller(project: Path) -> None:
    write_fast_config({"poller": {"intervalMs": POLL_MS}})


def finished_unseen(job_id: str, timeout: float = 60) -> None:
    """Wait for the job to end, then long enough for a live server to have noticed it."""
    store = JobStore()
    deadline = time.monotonic() + timeout
    while not store.load(job_id).is_terminal:
        assert time.monotonic() < deadline, f"job {job_id} never ended"
        time.sleep(0.05)
    time.sleep(10 * POLL_MS / 1000)


@pytest.mark.parametrize("second_session", [("--session", "kept"), ()], ids=["same", "adopter"])
async def test_wakeup_of_a_stopped_server_reaches_the_next_one(
    project: Path, second_session: tuple[str, ...]
) -> None:
    """The client stops the server after submit (pi's lazy lifecycle): the wake-up the server
    noticed but never returned is not counted, and the next server — of the same session, or
    one adopting the job — carries it, once; a status call before that does not settle it."""
    first = ("--session", "kept") if second_session else ()
    async with mcp_client(project, *first) as client:
        submitted = await client.call_tool(
            "oracle_submit", {"prompt": "late", "files": ["src"], "provider": "test"}
        )
        job_id = submitted.structured_content["job"]["id"]
        await anyio.to_thread.run_sync(finished_unseen, job_id)
    unseen = JobStore().load(job_id)
    assert unseen.wakeup_attempt_count == 0 and unseen.wakeup_settled_at is None

    async with mcp_client(project, *second_session) as client:
        status = await client.call_tool("oracle_status", {})
        assert not status.is_error, text_of(status)
        (carried,) = status.structured_content["wakeups"]
        assert carried["jobId"] == job_id and carried["attempt"] == 1
        assert carried.get("adopted", False) is (not second_session)
        assert f"Oracle job {job_id} is complete." in carried["text"]
        later = await client.call_tool("oracle_status", {})
        assert "wakeups" not in later.structured_content  # delivered once, not repeated
    after = JobStore().load(job_id)
    assert after.wakeup_attempt_count == 1
    assert after.wakeup_settled_at is None  # the agent saw a status, not the answer


async def test_one_wakeup_per_job_per_result_said_once(project: Path) -> None:
    """Reminders due at once (no retry delay) while the agent is idle: each result still carries
    one wake-up for the job, said once in the text and once in the structured content (not at
    all in a result about the job itself, which says how it ended)."""
    state = OracleMcp("one-each", cwd=project)
    state.poller.delays = (timedelta(0),) * 3
    job_id = submit("twice", ["src"], caller=Caller(session="one-each"), provider="test").job["id"]
    async with Client(build_server(state)) as client:
        await anyio.to_thread.run_sync(finished_unseen, job_id)
        waited = await client.call_tool("oracle_wait", {"jobId": job_id, "timeoutSeconds": 10})
        assert "wakeups" not in waited.structured_content  # the result is about the job
        assert JobStore().load(job_id).wakeup_attempt_count == 1  # carried all the same
        text = text_of(waited)
        assert text.count(f"Oracle job {job_id} is complete.") == 1
        assert text.count("not an instruction") == 1
        body = json.dumps(waited.structured_content)
        assert body.count(f"Oracle job {job_id} is complete.") == 1
        assert body.count("not an instruction") == 1
        assert len(text) + len(body) < 4000, (len(text), len(body))

        other = await client.call_tool("oracle_presets", {})
        (again,) = other.structured_content["wakeups"]
        assert again["jobId"] == job_id and again["attempt"] == 2
        assert text_of(other).count(f"Oracle job {job_id} is complete.") == 1
        assert json.dumps(other.structured_content).count("not an instruction") == 1
    assert JobStore().load(job_id).wakeup_attempt_count == 2


async def test_resource_updated_only_to_subscribers(project: Path) -> None:
    """`notifications/resources/updated` reaches a client that listens for the job's resource,
    and no other one."""
    heard: list[str] = []

    async def unsubscribed(message: object) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            heard.append(str(message.params.uri))

    async with (
        mcp_client(project, "--session", "subs") as listener,
        mcp_client(project, "--session", "subs", message_handler=unsubscribed) as bystander,
    ):
        submitted = await listener.call_tool(
            "oracle_submit", {"prompt": "tell me", "files": ["src"], "provider": "test"}
        )
        uri = JOB_URI.format(job_id=submitted.structured_content["job"]["id"])
        events = []
        async with listener.listen(resource_subscriptions=[uri]) as subscription:
            with anyio.fail_after(60):
                async for event in subscription:
                    events.append(event)
                    break
        assert [str(e.uri) for e in events] == [uri]
        await bystander.call_tool("oracle_presets", {})
    assert heard == []


async def test_hook_runs_once_while_the_agent_is_idle_and_counts_nothing(
    project: Path, tmp_path: Path
) -> None:
    """The notify hook tells the user at once, while the wake-up waits for the agent's next
    tool result (and is counted only then)."""
    out = tmp_path / "hook.log"
    script = "import os,sys; open(sys.argv[1],'a').write(os.environ['ORACULUM_JOB_ID']+'\\n')"
    write_fast_config(
        {
            "poller": {"intervalMs": POLL_MS},
            "notify": {"hook": [sys.executable, "-c", script, str(out)]},
        }
    )
    job_id = submit("hooked", ["src"], caller=Caller(session="hooked"), provider="test").job["id"]
    async with mcp_client(project, "--session", "hooked") as client:
        await anyio.to_thread.run_sync(finished_unseen, job_id)
        # The client may be connected before the server has loaded (its opening is answered
        # first): the hook runs once the server's watcher is up.
        with anyio.fail_after(60):
            while not out.exists():
                await anyio.sleep(0.1)
        await anyio.sleep(10 * POLL_MS / 1000)  # a second run would come by now
        assert out.read_text().split() == [job_id]
        assert JobStore().load(job_id).wakeup_attempt_count == 0
        carried = await client.call_tool("oracle_presets", {})
    assert [w["jobId"] for w in carried.structured_content["wakeups"]] == [job_id]
    assert out.read_text().split() == [job_id]
    assert JobStore().load(job_id).wakeup_attempt_count == 1


async def test_concurrent_results_never_carry_the_same_wakeup(project: Path) -> None:
    """Tool calls in flight together share the server's claimant: only one of them may claim,
    show and count a given wake-up."""
    state = OracleMcp("together", cwd=project)
    job_id = submit("together", ["src"], caller=Caller(session="together"), provider="test").job[
        "id"
    ]
    await anyio.to_thread.run_sync(finished_unseen, job_id)
    results: list[object] = []
    async with Client(build_server(state)) as client:

        async def call() -> None:
            results.append(await client.call_tool("oracle_presets", {}))

        async with anyio.create_task_group() as calls:
            for _ in range(6):
                calls.start_soon(call)
    carried = [w["jobId"] for r in results for w in (r.structured_content or {}).get("wakeups", [])]
    assert carried == [job_id]
    assert JobStore().load(job_id).wakeup_attempt_count == 1
