"""A real pi drives `oraculum mcp` end to end, its model scripted (issue 15, "A real host in CI").

pi (pinned in tests/hosts/package.json) runs non-interactively in JSON mode; its model is the
scripted OpenAI-compatible endpoint, which calls oraculum's tools in a fixed order and records
every request. Assertions are on the tool results as pi passed them to its model: what an
agent really sees.
"""

from __future__ import annotations

import pytest

from homes import write_fast_config
from oraculum.jobs.model import Status
from oraculum.jobs.store import JobStore

from .conftest import HOLDABLE, POLL_MS, StartModel
from .job_gates import (
    HeldWorker,
    job_finished,
    job_finished_and_scanned,
    job_id_in,
    live_servers,
    only_job,
    wakeup_count,
)
from .pi_host import PiHost, PiRun
from .scripted_model import Reply, ScriptedModel, ToolCall

pytestmark = [pytest.mark.hosts, pytest.mark.slow]

PROMPT = "What is 6 x 7?"
# The `timeout` of pi's MCP entry in the progress test, several of oracle_wait's progress
# periods. pi also gives the server's start (`initialize` and `tools/list`) this long, and no
# retry: at 4 s a start slowed by a loaded machine lost every tool ("Tool ... not found").
PI_TIMEOUT_S = 8
# How long that test's oracle_wait waits: well past the timeout.
PI_WAIT_S = PI_TIMEOUT_S + 4
PREFLIGHT = ToolCall("oracle_preflight", {"provider": "test"})
SUBMIT = ToolCall("oracle_submit", {"prompt": PROMPT, "files": ["."], "provider": "test"})


def assert_clean_run(run: PiRun, model: ScriptedModel) -> None:
    """pi finished normally and asked the model exactly as often as the script expected."""
    assert run.returncode == 0, run.stderr[-3000:]
    assert model.overruns == 0, "pi asked the model more often than scripted"


def total_wakeups(model: ScriptedModel, job_id: str) -> int:
    return sum(wakeup_count(e.result or "", job_id) for e in model.transcript.exchanges())


async def test_pi_preflight_submit_wait_read(
    pi_host: PiHost, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    model = await scripted_model(
        [
            PREFLIGHT,
            SUBMIT,
            ToolCall("oracle_wait", lambda t: {"jobId": job_id_in(t), "timeoutSeconds": 30}),
            ToolCall("oracle_read", lambda t: {"jobId": job_id_in(t)}),
            Reply("The oracle answered."),
        ]
    )
    pi_host.configure(model.base_url, oraculum_env)

    run = await pi_host.run("Ask the oracle what 6 x 7 is.")

    assert_clean_run(run, model)
    assert [e["isError"] for e in run.tool_ends()] == [False] * 4
    job = only_job()
    assert job.status == Status.COMPLETE and job.session_id == pi_host.session
    seen = model.transcript
    assert "ready" in seen.results_of("oracle_preflight")[0]
    assert job.id in seen.results_of("oracle_submit")[0]
    assert wakeup_count(seen.results_of("oracle_wait")[0], job.id) == 1
    assert f"Test answer to: {PROMPT}" in seen.results_of("oracle_read")[0]
    assert total_wakeups(model, job.id) == 1, "the agent was told of the completion twice"


async def test_pi_wakeup_arrives_in_a_later_tool_result(
    pi_host: PiHost, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    """The agent never waits: the job ends meanwhile, and the next oracle call carries the
    wake-up once; the call after that does not repeat it."""
    model = await scripted_model(
        [
            PREFLIGHT,
            SUBMIT,
            ToolCall("oracle_status", {}, before=job_finished),
            ToolCall("oracle_status", {}),
            Reply("Noted."),
        ]
    )
    pi_host.configure(model.base_url, oraculum_env)

    run = await pi_host.run("Ask the oracle, then look at the job list.")

    assert_clean_run(run, model)
    job_id = only_job().id
    submitted = model.transcript.results_of("oracle_submit")[0]
    first, second = model.transcript.results_of("oracle_status")
    assert wakeup_count(submitted, job_id) == 0
    assert wakeup_count(first, job_id) == 1, first
    assert wakeup_count(second, job_id) == 0, second


async def stopped_server_runs(
    pi_host: PiHost, model: ScriptedModel, held: HeldWorker | None = None
) -> None:
    """Two pi runs of one persisted pi session: the first submits and ends, and pi stops the
    server with it; the second starts a new server and makes one oracle call. A held worker
    is released between the two."""
    try:
        first = await pi_host.run("Ask the oracle what 6 x 7 is.")
        assert_clean_run(first, model)
        assert live_servers() == [], "pi left its MCP server running"
        if held is not None:
            assert not only_job().is_terminal
    finally:
        if held is not None:
            held.release()
    second = await pi_host.run("Anything new from the oracle?")
    assert_clean_run(second, model)


def assert_one_wakeup_in_the_next_server(model: ScriptedModel) -> None:
    job_id = only_job().id
    (status,) = model.transcript.results_of("oracle_status")
    assert wakeup_count(status, job_id) == 1, status
    assert total_wakeups(model, job_id) == 1


@pytest.mark.parametrize("stable_session", [True, False], ids=["ORACULUM_SESSION", "generated"])
async def test_pi_server_stopped_between_submit_and_completion(
    pi_host: PiHost,
    oraculum_env: dict[str, str],
    scripted_model: StartModel,
    stable_session: bool,
) -> None:
    """The worker is held until pi has stopped the server that submitted the job; the next
    server delivers the wake-up, once: as the same session when the `env` map names one, or
    as the project's live session that adopts the job when each server generates its own."""
    write_fast_config(HOLDABLE)
    held = HeldWorker()
    model = await scripted_model(
        [
            PREFLIGHT,
            SUBMIT,
            Reply("Submitted; I will wait for the wake-up.", before=held.hold),
            ToolCall("oracle_status", {}, before=job_finished),
            Reply("Noted."),
        ]
    )
    pi_host.configure(model.base_url, oraculum_env, stable_session=stable_session)

    await stopped_server_runs(pi_host, model, held)

    assert_one_wakeup_in_the_next_server(model)


async def test_pi_server_stopped_after_it_picked_up_the_wakeup(
    pi_host: PiHost, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    """The job ends while the first server lives and its background scan picks the wake-up
    up, but no tool result carries it before pi stops that server: the next server of the
    session must still deliver it, once."""
    model = await scripted_model(
        [
            PREFLIGHT,
            SUBMIT,
            Reply(
                "Submitted; I will wait for the wake-up.",
                before=job_finished_and_scanned(grace_s=10 * POLL_MS / 1000),
            ),
            ToolCall("oracle_status", {}),
            Reply("Noted."),
        ]
    )
    pi_host.configure(model.base_url, oraculum_env)

    await stopped_server_runs(pi_host, model)

    assert_one_wakeup_in_the_next_server(model)


async def test_pi_progress_keeps_a_wait_past_the_request_timeout(
    pi_host: PiHost, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    """pi times an MCP request out after the entry's `timeout` seconds, and the progress
    notifications `oracle_wait` sends reset it: a wait longer than the timeout still returns
    its own result ("still running"), not pi's timeout error."""
    write_fast_config(HOLDABLE)
    held = HeldWorker()
    model = await scripted_model(
        [
            PREFLIGHT,
            SUBMIT,
            ToolCall(
                "oracle_wait",
                lambda t: {"jobId": job_id_in(t), "timeoutSeconds": PI_WAIT_S},
                before=held.hold,
            ),
            Reply("Still running."),
        ]
    )
    pi_host.configure(model.base_url, oraculum_env, timeout=PI_TIMEOUT_S)
    try:
        run = await pi_host.run("Ask the oracle and wait a little.")
    finally:
        held.release()

    assert_clean_run(run, model)
    waited = run.tool_ends()[-1]
    assert waited["isError"] is False, waited
    assert waited["durationMs"] >= PI_WAIT_S * 1000 * 0.9
    (text,) = model.transcript.results_of("oracle_wait")
    assert only_job().id in text and "timed out" not in text.lower(), text


async def test_pi_bad_arguments(
    pi_host: PiHost, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    """Arguments the schema allows but oraculum refuses come back as tool errors in the
    documented shape (`[<code>] <message>` and a next step). Arguments the schema forbids
    never reach the server: pi validates them against the tool's input schema itself."""
    (pi_host.project.parent / "outside.py").write_text("x = 1\n")
    model = await scripted_model(
        [
            ToolCall(
                "oracle_submit",
                {"prompt": "q", "files": ["../outside.py"], "provider": "test"},
            ),
            ToolCall("oracle_status", {"jobId": "0000000000000"}),
            ToolCall("oracle_submit", {"prompt": 42}),
            Reply("Those calls failed."),
        ]
    )
    pi_host.configure(model.base_url, oraculum_env)

    run = await pi_host.run("Try some oracle calls.")

    assert_clean_run(run, model)
    ends = run.tool_ends()
    assert [e["isError"] for e in ends] == [True, True, True]
    outside, unknown, mistyped = (e.result or "" for e in model.transcript.exchanges())
    assert outside.startswith("[archive_input_outside_project] "), outside
    assert unknown.startswith("[job_not_found] "), unknown
    for text in (outside, unknown):
        assert "\nSuggested next step: " in text, text
    # pi's own schema check: its message, and no server behind the result.
    assert "Validation failed" in mistyped and "files" in mistyped, mistyped
    assert "server" not in ends[2]["result"].get("details", {})
    assert JobStore().list_ids() == []
