"""The one conversation every native host (Claude Code, Codex, opencode) runs against
`oraculum mcp --profile processes`, and what its model must have received.

One host session runs it all, in order: preflight → submit (test provider) → a wait that
runs out while the job's worker is held (`done:false`, well within the host's tool timeout,
which the job then outlives) → a tool of the profile (`managed_process_list`) → the worker
released, the next oracle result carries the job's wake-up → read → two bad arguments (an
unknown job, a timeout out of range). Assertions read the tool results as the host handed
them to its model: the text (opencode) or the structured content's JSON (Claude Code, Codex)
must each carry the facts and the guidance.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from oraculum.jobs.model import Status
from oraculum.jobs.store import JobStore

from .job_gates import HeldWorker, job_finished, job_id_in, only_job, until, wakeup_count
from .scripted_model import Reply, ScriptedModel, Step, ToolCall

PROFILE = "processes"
PROFILE_TOOL = "managed_process_list"
PROMPT = "What is 6 x 7?"
# The host's tool timeout, set the way the README says for each host, and a wait well inside it.
HOST_TOOL_TIMEOUT_S = 8
SHORT_WAIT_S = 2
UNKNOWN_JOB = "0000000000000"
ORACLE_TOOLS = ("oracle_preflight", "oracle_submit", "oracle_wait", "oracle_read")

Call = Callable[..., ToolCall]


class EarlyHold:
    """Holds the job's worker as soon as it exists: a slow host (opencode takes seconds
    between two model requests) would otherwise see the test job finish before the
    scripted wait."""

    def __init__(self) -> None:
        self.worker = HeldWorker()
        self._task: asyncio.Task[None] | None = None
        self._held_at = 0.0

    def start(self) -> None:
        self._task = asyncio.create_task(self._hold())

    async def _hold(self) -> None:
        await until(lambda: bool(JobStore().list_ids()), "the submitted job", timeout_s=180)
        await self.worker.hold()
        self._held_at = time.monotonic()

    async def held(self) -> None:
        assert self._task is not None
        await self._task

    async def released_and_finished(self) -> None:
        """Release the worker once the job has outlived the host's tool timeout (a wait for
        it would have timed out), then let it finish."""
        await asyncio.sleep(max(0.0, self._held_at + HOST_TOOL_TIMEOUT_S - time.monotonic()))
        self.release()
        await job_finished()

    def release(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self.worker.release()


def oracle_steps(call: Call, hold: EarlyHold) -> list[Step]:
    """The scripted model's side of the conversation; ``call`` names tools as the host does."""
    return [
        call("oracle_preflight", {"provider": "test"}),
        call("oracle_submit", {"prompt": PROMPT, "files": ["."], "provider": "test"}),
        call(
            "oracle_wait",
            lambda t: {"jobId": job_id_in(t), "timeoutSeconds": SHORT_WAIT_S},
            before=hold.held,
        ),
        call(PROFILE_TOOL, {}),
        call("oracle_status", {}, before=hold.released_and_finished),
        call("oracle_read", lambda t: {"jobId": job_id_in(t)}),
        call("oracle_status", {"jobId": UNKNOWN_JOB}),
        call("oracle_wait", {"timeoutSeconds": 999}),
        Reply("The oracle answered: 42."),
    ]


def first_request_offers(model: ScriptedModel, names: list[str]) -> bool:
    """Whether the first agent request put these tools before the model (declared, or listed
    by name for on-demand loading as Claude Code does)."""
    first = str(model.requests[0])
    return all(name in first for name in names)


def assert_oracle_conversation(model: ScriptedModel, tool_name: Callable[[str], str]) -> None:
    """What the model received, step by step (``tool_name``: the host's name for a tool)."""
    assert model.overruns == 0, "the host asked the model more often than scripted"
    assert len(model.requests) == 9, f"{len(model.requests)} agent requests"
    assert first_request_offers(model, [tool_name(t) for t in (*ORACLE_TOOLS, PROFILE_TOOL)])
    seen = model.transcript
    job = only_job()
    assert job.status == Status.COMPLETE
    (preflight,) = seen.results_of("oracle_preflight")
    (submitted,) = seen.results_of("oracle_submit")
    waited, bad_wait = seen.results_of("oracle_wait")
    status, unknown = seen.results_of("oracle_status")
    (read,) = seen.results_of("oracle_read")
    (profile,) = seen.results_of(PROFILE_TOOL)
    assert "ready" in preflight, preflight
    assert job.id in submitted and "Stop now" in submitted, submitted
    # The wait ran out inside the host's timeout: its own result, with its guidance.
    assert job.id in waited and "oracle_wait" in waited and "again" in waited, waited
    assert "timed out" not in waited.lower() and wakeup_count(waited, job.id) == 0, waited
    assert "no managed process" in profile.lower(), profile
    # The wake-up arrives in the next oracle result, once, with its guard.
    assert wakeup_count(status, job.id) == 1, status
    assert "not an instruction" in status, status
    assert f"Test answer to: {PROMPT}" in read, read
    assert "job_not_found" in unknown, unknown
    assert "invalid_argument" in bad_wait or "timeoutSeconds" in bad_wait, bad_wait
    total = sum(wakeup_count(e.result or "", job.id) for e in seen.exchanges())
    assert total == 1, "the agent was told of the completion more than once"


def server_environment(oraculum_env: dict[str, str], session: str) -> dict[str, str]:
    return {**oraculum_env, "ORACULUM_SESSION": session}


def tool_call(prefix: str, **fixed: Any) -> Call:
    """A ToolCall factory naming tools as one host does."""

    def call(tool: str, arguments: Any, **options: Any) -> ToolCall:
        return ToolCall(tool, arguments, prefix=prefix, **fixed, **options)

    return call


async def run_oracle_conversation(
    host: Any,
    call: Call,
    oraculum_env: dict[str, str],
    scripted_model: Callable[..., Any],
    session: str,
) -> ScriptedModel:
    """One host session through the whole scenario (a job held until the host's first wait has
    timed out); the scripted model, for the caller's assertions on what it received."""
    from homes import write_fast_config

    from .conftest import HOLDABLE

    write_fast_config(HOLDABLE)
    hold = EarlyHold()
    model: ScriptedModel = await scripted_model(oracle_steps(call, hold), side_without_tools=True)
    hold.start()
    try:
        run = await host.run(
            "Ask the oracle what 6 x 7 is.",
            model.base_url,
            server_environment(oraculum_env, session),
            profile=PROFILE,
            tool_timeout_s=HOST_TOOL_TIMEOUT_S,
        )
    finally:
        hold.release()
    assert run.returncode == 0, run.stderr[-3000:] + run.stdout[-3000:]
    return model
