"""Pure engine decisions: admission blocking, staleness, cleanup retries, removal blockers."""

from __future__ import annotations

from datetime import timedelta

import pytest

from oraculum.core.config import Config
from oraculum.jobs import transitions
from oraculum.jobs.model import Phase, WorkerIdentity
from oraculum.jobs.process import Liveness
from oraculum.jobs.rules import (
    CLEANUP_RETRY_DELAYS,
    MAX_CLEANUP_WARNINGS,
    MAX_WARNING_CHARS,
    EngineSettings,
    blocks_admission,
    cleanup_due,
    cleanup_outcome,
    merge_warnings,
    removal_blocker,
    retention_expired,
    stale_reason,
)

from .conftest import T0, build_job

SETTINGS = EngineSettings.from_config(Config())
WORKER = WorkerIdentity(pid=4242, start_time=1.0, nonce="n")


def active(with_worker: bool = True, heartbeat_age: float | None = None):
    job = build_job()
    patch = {"worker": WORKER} if with_worker else {}
    if heartbeat_age is not None:
        patch["heartbeat_at"] = T0 - timedelta(seconds=heartbeat_age)
    return transitions.update(job, at=T0, source="t", patch=patch)


def finished(phase: Phase = Phase.COMPLETE, **patch):
    job = transitions.transition(active(), Phase.AWAITING_RESPONSE, at=T0, source="t")
    return transitions.transition(job, phase, at=T0, source="t", patch=patch)


def test_settings_come_from_config_defaults() -> None:
    assert SETTINGS.max_concurrent_jobs == 2
    assert SETTINGS.stale_heartbeat == timedelta(minutes=3)
    assert SETTINGS.no_worker_grace == timedelta(seconds=30)
    assert SETTINGS.complete_retention == timedelta(days=14)
    assert SETTINGS.failed_retention == timedelta(days=30)


@pytest.mark.parametrize(
    ("job_factory", "worker", "blocks"),
    [
        (lambda: active(), Liveness.ALIVE, True),
        (lambda: active(), Liveness.DEAD, True),  # active until reconciled
        (lambda: finished(cleanup_pending=True), Liveness.DEAD, True),
        (lambda: finished(), Liveness.ALIVE, True),
        (lambda: finished(), Liveness.DEAD, False),
        (lambda: finished(cleanup_warnings=["x"]), Liveness.DEAD, False),
        (lambda: finished(), Liveness.MISMATCH, False),
    ],
)
def test_blocks_admission(job_factory, worker, blocks) -> None:
    assert blocks_admission(job_factory(), worker) is blocks


def test_stale_reasons() -> None:
    now = T0
    assert stale_reason(active(heartbeat_age=5), now, Liveness.ALIVE, SETTINGS) is None
    assert "no longer running" in stale_reason(active(), now, Liveness.DEAD, SETTINGS)
    assert "no longer matches" in stale_reason(active(), now, Liveness.MISMATCH, SETTINGS)
    assert "heartbeat is stale (200s" in stale_reason(
        active(heartbeat_age=200), now, Liveness.ALIVE, SETTINGS
    )
    no_worker = active(with_worker=False)
    assert stale_reason(no_worker, now + timedelta(seconds=29), None, SETTINGS) is None
    assert "has no worker" in stale_reason(no_worker, now + timedelta(seconds=31), None, SETTINGS)
    assert stale_reason(finished(), now, Liveness.DEAD, SETTINGS) is None
    assert stale_reason(build_job(queued=True), now + timedelta(days=1), None, SETTINGS) is None


def test_cleanup_retry_schedule_and_cap() -> None:
    job = finished()
    at = T0
    seen_delays = []
    for attempt in range(1, 6):
        job = transitions.update(
            job, at=at, source="t", patch=cleanup_outcome(job, [f"w{attempt}"], at)
        )
        assert job.cleanup_attempt_count == attempt
        assert job.cleanup_pending is False  # warnings never hold the slot
        assert job.error is None  # and never become the job's error
        if attempt < 5:
            seen_delays.append(job.cleanup_retry_at - at)
            assert not cleanup_due(job, at)
            assert cleanup_due(job, job.cleanup_retry_at)
        else:
            assert job.cleanup_retry_at is None and not cleanup_due(job, at + timedelta(days=9))
    assert tuple(seen_delays) == CLEANUP_RETRY_DELAYS
    assert seen_delays == [
        timedelta(seconds=15),
        timedelta(minutes=1),
        timedelta(minutes=5),
        timedelta(minutes=15),
    ]
    cleared = transitions.update(job, at=at, source="t", patch=cleanup_outcome(job, [], at))
    assert cleared.cleanup_warnings is None and cleared.last_cleanup_at == at


def test_warnings_are_deduplicated_and_capped() -> None:
    merged = merge_warnings(["a", "b"], ["b", "c", "x" * 2000])
    assert merged[:3] == ["a", "b", "c"]
    assert len(merged[3]) == MAX_WARNING_CHARS and merged[3].endswith("…")
    many = merge_warnings(None, [f"w{n}" for n in range(20)])
    assert len(many) == MAX_CLEANUP_WARNINGS and many[-1] == "w19"


def test_removal_blockers() -> None:
    now = T0 + timedelta(days=40)
    assert "not finished" in removal_blocker(active(), now, None, SETTINGS).reason
    assert "still live" in removal_blocker(finished(), now, Liveness.ALIVE, SETTINGS).reason
    assert "pending" in removal_blocker(finished(cleanup_pending=True), now, None, SETTINGS).reason
    claimed = finished(notify_claimed_at=now - timedelta(seconds=10), notify_claimed_by="s")
    blocker = removal_blocker(claimed, now, None, SETTINGS)
    assert "in flight" in blocker.reason and blocker.retry_at == now + timedelta(seconds=50)
    sent = finished(wakeup_last_requested_at=now - timedelta(minutes=1))
    blocker = removal_blocker(sent, now, None, SETTINGS)
    assert "recently" in blocker.reason and blocker.retry_at == now + timedelta(minutes=9)
    assert removal_blocker(finished(cleanup_warnings=["w"]), now, Liveness.DEAD, SETTINGS) is None


def test_retention_by_outcome() -> None:
    complete, failed, cancelled = finished(), finished(Phase.FAILED), finished(Phase.CANCELLED)
    day = timedelta(days=1)
    assert not retention_expired(complete, T0 + 13 * day, SETTINGS)
    assert retention_expired(complete, T0 + 14 * day, SETTINGS)
    assert retention_expired(cancelled, T0 + 14 * day, SETTINGS)
    assert not retention_expired(failed, T0 + 29 * day, SETTINGS)
    assert retention_expired(failed, T0 + 30 * day, SETTINGS)
