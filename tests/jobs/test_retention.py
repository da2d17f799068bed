"""Removing finished jobs on disk: explicit clean with refusals, and pruning by policy."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from oraculum.core.errors import OracleError
from oraculum.jobs import indexes, transitions
from oraculum.jobs.admission import submit_job
from oraculum.jobs.cancel import cancel_job
from oraculum.jobs.model import Status, utc_now
from oraculum.jobs.process import Liveness, liveness
from oraculum.jobs.retention import prune_terminal, remove_job
from oraculum.jobs.store import JobStore

from .engine_support import make_request, wait_for, write_global_config

pytestmark = pytest.mark.slow


def done(store: JobStore, project: Path, config, **knobs):
    job = submit_job(make_request(project, config, knobs=knobs), store=store)
    return wait_for(
        store,
        job.id,
        lambda j: j.is_terminal and not j.cleanup_pending and liveness(j.worker) != Liveness.ALIVE,
    )


def test_clean_refuses_open_job_and_removes_finished(project: Path, store: JobStore) -> None:
    config = write_global_config()
    running = submit_job(make_request(project, config, knobs={"outcome": "hang"}), store=store)
    with pytest.raises(OracleError) as info:
        remove_job(running.id, store=store)
    assert info.value.code == "clean_blocked" and info.value.retryable
    assert f"oraculum cancel {running.id}" in info.value.suggested_next_step
    cancel_job(running.id, store=store)
    remove_job(running.id, store=store)
    assert not store.paths(running.id).dir.exists()
    assert running.id not in indexes.members(indexes.OPEN)


def test_clean_inside_wakeup_grace_says_when(project: Path, store: JobStore) -> None:
    config = write_global_config()
    job = done(store, project, config)
    store.update(
        job.id,
        lambda j: transitions.update(
            j, at=utc_now(), source="t", patch={"wakeup_last_requested_at": utc_now()}
        ),
    )
    with pytest.raises(OracleError) as info:
        remove_job(job.id, store=store)
    assert info.value.code == "clean_blocked" and info.value.retryable
    assert "Retry after 20" in info.value.message and "remaining" in info.value.message
    assert "retryAt" in info.value.details
    assert store.paths(job.id).response.exists()  # files kept for the agent that was told


def test_teardown_warnings_keep_the_job_and_are_recorded(project: Path, store: JobStore) -> None:
    config = write_global_config()
    job = done(store, project, config)
    victim = project / "precious"
    victim.mkdir()
    (victim / "data.txt").write_text("keep me")
    # A tampered job.json pointing its runtime profile at someone else's directory.
    store.update(job.id, lambda j: j.model_copy(update={"runtime_profile_dir": str(victim)}))
    with pytest.raises(OracleError) as info:
        remove_job(job.id, store=store)
    assert info.value.code == "clean_blocked"
    assert (victim / "data.txt").read_text() == "keep me"
    kept = store.load(job.id)
    assert (
        kept.cleanup_warnings and "Refusing to remove runtime profile" in kept.cleanup_warnings[0]
    )
    assert kept.error is None


def test_prune_by_policy(project: Path, store: JobStore) -> None:
    config = write_global_config(
        extra={"cleanup": {"completeJobRetentionMs": 60_000, "failedJobRetentionMs": 120_000}}
    )
    old_complete = done(store, project, config)
    old_failed = done(store, project, config, outcome="fail")
    fresh = done(store, project, config)

    def age(job_id: str, seconds: int) -> None:
        def backdate(j):
            return j.model_copy(update={"completed_at": utc_now() - timedelta(seconds=seconds)})

        store.update(job_id, backdate)

    age(old_complete.id, 90)
    age(old_failed.id, 90)  # failed jobs are kept longer
    report = prune_terminal(store)
    assert report.removed == [old_complete.id]
    assert store.load(old_failed.id).status == Status.FAILED
    age(old_failed.id, 150)
    assert prune_terminal(store).removed == [old_failed.id]
    assert store.list_ids() == [fresh.id]
