"""The wording of MCP results and next steps (pure functions, no server)."""

from __future__ import annotations

from pathlib import Path

from oraculum.core.errors import OracleError
from oraculum.core.surface import for_surface, mcp_command
from oraculum.mcp.render import (
    Outcome,
    compose,
    error_outcome,
    read_outcome,
    status_outcome,
    wait_outcome,
)
from oraculum.service.read import ReadResult, Recollection, ResponseFile
from oraculum.service.status import JobList, JobStatus
from oraculum.service.wait import Delivery, WaitResult
from oraculum.sessions.wakeup import Wakeup


def wakeup(job_id: str, attempt: int = 1) -> Wakeup:
    return Wakeup(
        job_id,
        "complete",
        "s",
        "s",
        "p",
        f"Oracle job {job_id} is complete.",
        "r",
        True,
        "a",
        attempt,
    )


def test_cli_mentions_become_tool_calls() -> None:
    steps = {
        "Run `oraculum status` to list job ids.": "Call `oracle_status` to list job ids.",
        "Run `oraculum auth chatgpt` (oracle_auth) once, then retry.": (
            'Call `oracle_auth {"provider": "chatgpt"}` once, then retry.'
        ),
        "Read it with `oraculum read abcd1234 --recollect`.": (
            'Read it with `oracle_read {"jobId": "abcd1234", "action": "recollect"}`.'
        ),
        "Submit one with `oraculum submit` (oracle_submit).": "Submit one with `oracle_submit`.",
        "Wait (`oraculum status`), then retry.": "Wait (`oracle_status`), then retry.",
        "Run `oraculum presets` to list the presets.": "Call `oracle_presets` to list the presets.",
    }
    for cli, mcp in steps.items():
        assert for_surface(cli, "mcp") == mcp
        assert for_surface(cli, "cli") == cli


def test_commands_without_a_tool_stay_for_the_user() -> None:
    for text in (
        "Run `oraculum auth --manual` in a desktop session.",
        "Run `oraculum clean --expired`, then retry.",
        "Run `oraculum status --all-projects` to see every job.",
        "Usage: `oraculum cancel <job-id>`.",
    ):
        assert for_surface(text, "mcp") == text
    assert mcp_command("doctor --live") is None


def test_error_outcome_rewrites_message_and_step() -> None:
    error = OracleError(
        "job_not_found",
        "Oracle job not found: abcd (see `oraculum status`).",
        suggested_next_step="Run `oraculum status` to list job ids.",
    )
    outcome = error_outcome(error)
    assert outcome.is_error
    assert outcome.text == (
        "[job_not_found] Oracle job not found: abcd (see `oracle_status`).\n"
        "Suggested next step: Call `oracle_status` to list job ids."
    )
    assert outcome.data["error"]["suggestedNextStep"] == "Call `oracle_status` to list job ids."


def test_compose_says_a_wakeup_once_and_not_for_the_results_own_job() -> None:
    outcome = Outcome("Oracle job a is complete.", {"done": True}, subject="a")
    text, data = compose(outcome, [wakeup("a"), wakeup("b", 2)])
    assert text == "Oracle job a is complete.\n\nOracle job b is complete."
    assert [(w["jobId"], w["attempt"]) for w in data["wakeups"]] == [("a", 1), ("b", 2)]
    assert all("text" not in w for w in data["wakeups"])
    assert compose(Outcome("x", {}), []) == ("x", {})


def test_one_status_has_no_python_booleans() -> None:
    job = {
        "id": "abcd",
        "status": "complete",
        "phase": "complete",
        "provider": "test",
        "createdAt": "t",
        "promptSendState": "accepted",
        "cleanupPending": False,
        "responsePath": "/r.md",
        "responseAvailable": True,
        "wakeup": {"attempts": 1, "settled": False},
        "queue": {"queued": False},
    }
    text = status_outcome(JobStatus(job)).text
    assert "True" not in text and "False" not in text
    assert "cleanup pending: no" in text and "settled: no" in text
    assert text.endswith('Read it with `oracle_read {"jobId": "abcd"}`.')
    assert JobStatus(job).text("cli").endswith("Read it with `oraculum read abcd`.")


def test_status_list_keeps_its_json_and_shows_agents_brief_rows() -> None:
    job = {"id": "abcd", "status": "waiting", "phase": "p", "provider": "test", "ageSeconds": 3}
    listed = JobList([job], Path("/proj"), [{"code": "job_corrupt"}])
    shape = listed.to_json()
    assert list(shape) == ["jobs", "recentJobIds", "project", "problems"]
    assert shape["recentJobIds"] == ["abcd"] and shape["project"] == "/proj"
    assert "problems" not in JobList([], None).to_json()
    outcome = status_outcome(listed)
    assert outcome.data["jobs"] == [
        {"id": "abcd", "status": "waiting", "phase": "p", "provider": "test"}
    ]
    assert outcome.data["problems"] == [{"code": "job_corrupt"}]
    assert outcome.text == "Recent oracle jobs (newest first):\n- abcd: waiting (p), test"
    assert status_outcome(JobList([], None)).text == "No oracle jobs in this project yet."


def test_timed_out_wait_says_call_again() -> None:
    job = {"id": "abcd", "status": "waiting", "phase": "awaiting_response"}
    result = WaitResult(False, job, 45.0, message="Oracle job abcd is still waiting.")
    outcome = wait_outcome(result, None)
    assert not outcome.is_error
    assert outcome.text.startswith(
        "Oracle job abcd is still waiting (awaiting_response) after 45 s."
    )
    assert 'call `oracle_wait {"jobId": "abcd"}` again' in outcome.text
    assert result.text("cli") == "Oracle job abcd is still waiting."
    assert outcome.data == {"done": False, "job": job, "elapsedSeconds": 45.0}


def test_delivered_wait_keeps_its_json_and_prints_each_wakeup() -> None:
    job = {"id": "abcd", "status": "complete", "phase": "complete"}
    first, second = wakeup("abcd"), wakeup("efgh")
    result = WaitResult(True, job, 1.5, Delivery(second, (first, second), True))
    shape = result.to_json()
    assert list(shape) == ["done", "job", "wakeup", "wakeups", "delivered", "elapsedSeconds"]
    assert shape["wakeup"] == second.to_dict() and shape["delivered"] is True
    assert result.text("cli") == "Oracle job abcd is complete.\nOracle job efgh is complete."
    outcome = wait_outcome(result, "Oracle job abcd is complete.")
    assert outcome.subject == "abcd" and set(outcome.data) == {"done", "job", "elapsedSeconds"}
    watched = WaitResult(True, None, 0.5)  # a host's watch: its wake-ups ride on its own result
    assert list(watched.to_json()) == ["done", "job", "elapsedSeconds"]


def test_read_gaps_are_plain_words() -> None:
    job = {"id": "abcd", "status": "failed", "phase": "failed", "artifactsPath": "/a"}
    gaps = {"recollectionNeeded": True, "requiredMissing": ["code block", "sources"]}
    result = ReadResult(job, ResponseFile(Path("/r.md"), False), gaps, [])
    text = read_outcome(result).text
    assert "recollectionNeeded: yes" in text and "requiredMissing: code block, sources" in text
    assert "True" not in text and "[" not in text
    assert result.to_json()["response"] == {"path": "/r.md", "available": False}


def test_read_keeps_its_json_and_words_the_recollection_per_surface() -> None:
    job = {"id": "abcd", "status": "complete", "phase": "complete", "artifactsPath": "/a"}
    response = ResponseFile(Path("/r.md"), True, 10, "0123", True)
    again = Recollection(False, "Run `oraculum read abcd` in a minute.")
    result = ReadResult(job, response, {}, [{"path": "/a/x.png"}], again)
    shape = result.to_json()
    assert list(shape) == ["job", "response", "gaps", "artifacts", "recollection"]
    assert list(shape["response"]) == ["path", "available", "chars", "preview", "truncated"]
    assert shape["recollection"] == {"started": False, "message": again.message}
    outcome = read_outcome(result)
    worded = 'Call `oracle_read {"jobId": "abcd"}` in a minute.'
    assert outcome.data["recollection"]["message"] == worded and worded in outcome.text
    assert "Artifacts: 1 in /a" in outcome.text
    assert "(truncated; the rest is in /r.md)" in outcome.text
    assert "Run `oraculum read abcd`" in result.text("cli")
    started = Recollection(True, "Started.", 42).to_json()
    assert list(started) == ["started", "pid", "message"]


def test_submit_says_where_the_wakeup_comes_from_per_host() -> None:
    from oraculum.mcp.prompts import BRIDGE_WAKEUP
    from oraculum.mcp.render import submit_outcome
    from oraculum.service.submit import SubmitResult

    job = {"id": "0123456789abc", "status": "submitted", "provider": "test", "selection": {}}
    served = submit_outcome(SubmitResult(job)).text.splitlines()
    bridged = submit_outcome(SubmitResult(job), wakeup=BRIDGE_WAKEUP).text.splitlines()
    assert served[:-1] == bridged[:-1]
    assert "oracle_wait" in served[-1] and "later oracle tool result" in served[-1]
    assert bridged[-1] == f"Stop now: {BRIDGE_WAKEUP}."
