"""Removing finished jobs: one on request (`clean <id>`), or all past retention (`clean
--terminal`)."""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from datetime import timedelta

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.jobs import indexes
from oraculum.jobs.locks import RECOLLECT_LOCK, is_locked, named_lock
from oraculum.jobs.model import Job, iso, utc_now
from oraculum.jobs.process import Liveness
from oraculum.jobs.rules import EngineSettings, PruneBlocker, removal_blocker, retention_expired
from oraculum.jobs.runtime import job_settings_config, teardown, with_cleanup, worker_liveness
from oraculum.jobs.store import JobStore

SOURCE = "oracle:cleanup"


@dataclass
class PruneReport:
    removed: list[str] = field(default_factory=list)
    kept: dict[str, str] = field(default_factory=dict)


def remove_job(job_id: str, *, store: JobStore | None = None, force: bool = False) -> None:
    """Delete one finished job's directory, or refuse with the reason and when to retry
    (``force``: past the wake-up grace too, see :func:`removal_blocker`)."""
    store = store or JobStore()
    with named_lock("job", job_id, timeout=10.0):
        job = store.load(job_id)
        _remove_locked(store, job, force=force)


# A worker whose job has just finished and been cleaned up is on its way out: `wait` returns at
# the ending, and a `clean` right after it should not be refused for the last few moments.
EXITING_WORKER_GRACE_S = 2.0
RECENT_CLEANUP = timedelta(seconds=30)


def _let_a_finished_worker_exit(job: Job) -> None:
    recent = job.last_cleanup_at is not None and utc_now() - job.last_cleanup_at < RECENT_CLEANUP
    if job.worker is None or job.cleanup_pending or not recent:
        return
    deadline = time.monotonic() + EXITING_WORKER_GRACE_S
    while worker_liveness(job) == Liveness.ALIVE and time.monotonic() < deadline:
        time.sleep(0.02)


def open_job_blocked(job: Job) -> OracleError:
    """A job still queued or running cannot be removed yet: busy, so retryable (exit 5) once it
    ends or is cancelled."""
    return OracleError(
        ErrorCode.CLEAN_BLOCKED,
        f"Refusing to remove oracle job {job.id}: it is still {job.status.value}.",
        rejected_value=job.id,
        retryable=True,
        suggested_next_step=f"Wait for it to finish, or run `oraculum cancel {job.id}` first.",
    )


def _remove_locked(store: JobStore, job: Job, *, force: bool = False) -> None:
    if not job.is_terminal:
        raise open_job_blocked(job)
    settings = EngineSettings.from_config(job_settings_config(job))
    _let_a_finished_worker_exit(job)
    now = utc_now()
    blocker = removal_blocker(job, now, worker_liveness(job), settings, force=force)
    if blocker is None and is_locked(RECOLLECT_LOCK, job.id):
        blocker = PruneBlocker("a recollection of its answer is running")
    if blocker is not None:
        retry = ""
        if blocker.retry_at is not None:
            remaining = max(0, int((blocker.retry_at - now).total_seconds()))
            retry = f" Retry after {iso(blocker.retry_at)} ({remaining}s remaining)."
        raise OracleError(
            ErrorCode.CLEAN_BLOCKED,
            f"Refusing to remove oracle job {job.id}: {blocker.reason}.{retry}",
            rejected_value=job.id,
            retryable=True,
            details={"retryAt": iso(blocker.retry_at)} if blocker.retry_at else {},
            # Only the wake-up's grace has a time; it is the one blocker --force passes.
            suggested_next_step=(
                f"Retry later, or run `oraculum clean {job.id} --force`."
                if blocker.retry_at is not None
                else "Retry later."
            ),
        )
    warnings = teardown(job, store)
    if warnings:
        # The job lock is ours already: persist the warnings directly.
        store.save(with_cleanup(job, warnings, at=now, source=SOURCE))
        raise OracleError(
            ErrorCode.CLEAN_BLOCKED,
            f"Kept oracle job {job.id}: cleanup left warnings: {'; '.join(warnings)}",
            rejected_value=job.id,
            retryable=True,
        )
    directory = store.paths(job.id).dir
    for attempt in range(5):
        shutil.rmtree(directory, ignore_errors=attempt < 4)
        if not directory.exists():
            break
        time.sleep(0.05)
    indexes.forget(job.id, job.project_id)


def prune_terminal(store: JobStore | None = None) -> PruneReport:
    """Remove every finished job past its retention that nothing else still needs."""
    store = store or JobStore()
    report = PruneReport()
    now = utc_now()
    for item in store.iter_jobs(newest_first=False):
        if isinstance(item, OracleError) or not item.is_terminal:
            continue
        settings = EngineSettings.from_config(job_settings_config(item))
        if not retention_expired(item, now, settings):
            continue
        try:
            remove_job(item.id, store=store)
            report.removed.append(item.id)
        except OracleError as error:
            report.kept[item.id] = error.message
    return report
