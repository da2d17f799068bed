"""The wording of MCP results and next steps (pure functions, no server)."""

from __future__ import annotations

from pathlib import Path

from oraculum.core.errors import OracleError
from oraculum.core.surface import for_surface, mcp_command
from oraculum.mcp.render import (
    Outcome,
    compose,
    error_outcome,
    outcome,
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
    refused = error_outcome(error)
    assert refused.is_error
    assert refused.text == (
        "[job_not_found] Oracle job not found: abcd (see `oracle_status`).\n"
        "Suggested next step: Call `oracle_status` to list job ids."
    )
    assert refused.data["error"]["suggestedNextStep"] == "Call `oracle_status` to list job ids."


def test_compose_says_a_wakeup_once_and_not_for_the_results_own_job() -> None:
    result = outcome("Oracle job a is complete.", {"done": True}, next_step="Read a.", subject="a")
    text, data = compose(result, [wakeup("a"), wakeup("b", 2)])
    assert text == "Oracle job a is complete.\nRead a.\n\nOracle job b is complete."
    assert data == {
        "message": "Oracle job a is complete.",
        "done": True,
        "nextStep": "Read a.",
        "wakeups": [
            {"jobId": "b", "status": "complete", "attempt": 2, "text": "Oracle job b is complete."}
        ],
    }
    assert compose(Outcome("x", {}), []) == ("x", {})


def test_an_outcome_says_its_message_and_next_step_in_both_forms() -> None:
    said = outcome("Done.", {"id": 1}, text="Done: 1 file.", next_step="Stop now.")
    assert said.text == "Done.\nDone: 1 file.\nStop now."
    assert said.structured() == {"message": "Done.", "id": 1, "nextStep": "Stop now."}
    assert outcome("Done.", {}, text="Done. Stop now.", next_step="Stop now.").text == (
        "Done. Stop now."
    )


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
    listed_outcome = status_outcome(listed)
    assert listed_outcome.data["recentJobIds"] == ["abcd"]
    assert listed_outcome.data["problems"] == [{"code": "job_corrupt"}]
    assert listed_outcome.message == "Recent oracle jobs (newest first):\n- abcd: waiting (p), test"
    assert listed_outcome.text.startswith(listed_outcome.message + "\nDetails of one: ")
    assert status_outcome(JobList([], None)).message == "No oracle jobs in this project yet."


def test_timed_out_wait_says_call_again() -> None:
    job = {"id": "abcd", "status": "waiting", "phase": "awaiting_response"}
    result = WaitResult(False, job, 45.0, message="Oracle job abcd is still waiting.")
    still = wait_outcome(result, None)
    assert not still.is_error
    assert still.text.startswith("Oracle job abcd is still waiting (awaiting_response) after 45 s.")
    assert 'call `oracle_wait {"jobId": "abcd"}` again' in still.text
    assert still.next_step in still.text and still.message in still.text
    assert 'call `oracle_wait {"jobId": "abcd"}` again' in still.next_step
    assert result.text("cli") == "Oracle job abcd is still waiting."
    assert still.data == {"done": False, "job": {"id": "abcd"}, "elapsedSeconds": 45.0}


def test_delivered_wait_keeps_its_json_and_prints_each_wakeup() -> None:
    job = {"id": "abcd", "status": "complete", "phase": "complete"}
    first, second = wakeup("abcd"), wakeup("efgh")
    result = WaitResult(True, job, 1.5, Delivery(second, (first, second), True))
    shape = result.to_json()
    assert list(shape) == ["done", "job", "wakeup", "wakeups", "delivered", "elapsedSeconds"]
    assert shape["wakeup"] == second.to_dict() and shape["delivered"] is True
    assert result.text("cli") == "Oracle job abcd is complete.\nOracle job efgh is complete."
    delivered = wait_outcome(result, "Oracle job abcd is complete.")
    assert delivered.subject == "abcd" and set(delivered.data) == {"done", "job", "elapsedSeconds"}
    watched = WaitResult(True, None, 0.5)  # a host's watch: its wake-ups ride on its own result
    assert list(watched.to_json()) == ["done", "job", "elapsedSeconds"]


def test_read_gaps_are_plain_words() -> None:
    job = {"id": "abcd", "status": "failed", "phase": "failed", "artifactsPath": "/a"}
    job["workerLogPath"] = "/w.log"
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
    read_it = read_outcome(result)
    worded = 'Call `oracle_read {"jobId": "abcd"}` in a minute.'
    assert read_it.data["recollection"]["message"] == worded and worded in read_it.text
    assert read_it.next_step == worded
    assert "Artifacts: 1 in /a" in read_it.text and read_it.data["artifactsPath"] == "/a"
    assert "(truncated; the rest is in /r.md)" in read_it.text
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
