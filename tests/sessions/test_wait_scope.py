"""Issue 38 §4: a session's `wait` is told only of its own jobs unless it adopts, and a bare
`wait` with nothing open for its session returns at once instead of blocking forever."""

from __future__ import annotations

from pathlib import Path

import pytest

from homes import run_cli
from oraculum.core.errors import OracleError
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.wait import wait

from .jobs_support import finished_job


def test_a_fresh_sessions_wait_is_not_handed_an_ended_sessions_job(project: Path) -> None:
    store = JobStore()
    orphan = finished_job(store, project, "yesterday")
    with pytest.raises(OracleError) as refused:
        wait(caller=Caller(session="fresh", cwd=project))
    assert refused.value.code == "nothing_to_wait_for"
    assert "--adopt" in (refused.value.suggested_next_step or "")
    assert store.load(orphan.id).wakeup_attempt_count == 0  # nobody was told


def test_adopting_takes_the_ended_sessions_job(project: Path) -> None:
    orphan = finished_job(JobStore(), project, "yesterday")
    result = wait(caller=Caller(session="fresh", cwd=project), adopt=True, timeout_s=10)
    assert result.done and result.job is not None and result.job["id"] == orphan.id
    assert result.delivery is not None and result.delivery.wakeup.to_dict()["adopted"] is True


def test_a_wait_with_a_timeout_still_waits_for_a_notice(project: Path) -> None:
    result = wait(caller=Caller(session="fresh", cwd=project), timeout_s=0.3)
    assert not result.done and result.job is None


def test_the_sessions_own_finished_job_is_delivered(project: Path) -> None:
    own = finished_job(JobStore(), project, "fresh")
    result = wait(caller=Caller(session="fresh", cwd=project))
    assert result.done and result.job is not None and result.job["id"] == own.id


def test_the_cli_says_nothing_to_wait_for_then_adopts_on_request(project: Path) -> None:
    orphan = finished_job(JobStore(), project, "yesterday")
    code, refused = run_cli("wait", "--session", "fresh", cwd=project)
    assert code == 3 and refused["error"]["code"] == "nothing_to_wait_for", refused
    code, adopted = run_cli("wait", "--session", "fresh", "--adopt", cwd=project)
    assert code == 0 and adopted["job"]["id"] == orphan.id, adopted
