"""Cancel: a queued job (no worker; its archive goes), an active job (its verified worker is
terminated, after a durable intent), a finished job (a clear no-op)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from oraculum.core.errors import ErrorCode
from oraculum.jobs import indexes, transitions
from oraculum.jobs.admission import promote_queue
from oraculum.jobs.locks import named_lock
from oraculum.jobs.model import Job, Phase, Status, utc_now
from oraculum.jobs.process import terminate
from oraculum.jobs.rules import EngineSettings
from oraculum.jobs.runtime import job_settings_config, record_cleanup, teardown
from oraculum.jobs.store import JobStore

SOURCE = "oracle:cancel"
DEFAULT_REASON = "Cancelled by user"


@dataclass(frozen=True)
class CancelOutcome:
    job: Job
    outcome: str  # cancelled | already_finished | finished_first | cancel_failed
    message: str


def _finished(job: Job, outcome: str) -> CancelOutcome:
    when = "already" if outcome == "already_finished" else "before cancellation completed"
    return CancelOutcome(
        job, outcome, f"Oracle job {job.id} finished as {job.status.value} {when}."
    )


def cancel_job(
    job_id: str, *, reason: str = DEFAULT_REASON, store: JobStore | None = None
) -> CancelOutcome:
    store = store or JobStore()
    job = store.load(job_id)
    if job.is_terminal:
        return _finished(job, "already_finished")
    # Under the admission lock a queued job cannot be promoted while we cancel it.
    with named_lock("admission", timeout=30.0):
        job = store.load(job_id)
        if job.status == Status.QUEUED:
            return _cancel_queued(store, job, reason)
    if job.is_terminal:
        return _finished(job, "already_finished")
    return _cancel_active(store, job, reason)


def _cancel_queued(store: JobStore, job: Job, reason: str) -> CancelOutcome:
    at = utc_now()
    cancelled = store.update(
        job.id,
        lambda current: (
            None
            if current.status != Status.QUEUED
            else transitions.end(
                current,
                Phase.CANCELLED,
                at=at,
                source=SOURCE,
                message=f"Job cancelled: {reason}",
                error=reason,
            )
        ),
    )
    indexes.unmark(indexes.QUEUE, job.id)
    if cancelled.status != Status.CANCELLED:
        return _finished(cancelled, "finished_first")
    record_cleanup(store, job.id, teardown(cancelled, store), source=SOURCE)
    return CancelOutcome(store.load(job.id), "cancelled", f"Cancelled oracle job {job.id}.")


def _cancel_active(store: JobStore, job: Job, reason: str) -> CancelOutcome:
    settings = EngineSettings.from_config(job_settings_config(job))
    asked = utc_now()
    # 1. A durable intent first: should we die now, reconcile still ends the job cancelled.
    job = _record_intent(store, job, reason, asked)
    if job.is_terminal:
        return _finished(job, "finished_first")
    # 2. Stop the verified worker (never a pid that now belongs to another process).
    stopped = job.worker is None or terminate(job.worker, grace_s=settings.terminate_grace_s)
    pid = job.worker.pid if job.worker else None
    # 3. Decide — unless the job finished meanwhile: a completion wins over a cancel.
    end = utc_now()
    final = store.update(job.id, lambda current: _decide(current, stopped, pid, reason, end))
    if final.phase_at != end:
        if final.status == Status.CANCELLED and final.phase_at >= asked:
            # The worker's watchdog (or a reconcile) saw it die first and carried out the
            # intent we recorded; the job is cancelled as asked.
            return CancelOutcome(final, "cancelled", f"Cancelled oracle job {job.id}.")
        return _finished(final, "finished_first")
    return _clean_up(store, final, stopped, pid)


def _record_intent(store: JobStore, job: Job, reason: str, asked: datetime) -> Job:
    return store.update(
        job.id,
        lambda current: (
            None
            if current.is_terminal
            else transitions.update(
                current,
                at=asked,
                source=SOURCE,
                patch={"cancel_requested_at": asked, "cancel_reason": reason},
                message=f"Cancellation requested: {reason}",
            )
        ),
    )


def _decide(current: Job, stopped: bool, pid: int | None, reason: str, end: datetime) -> Job | None:
    """Cancelled when the worker is gone, failed (`cancel_failed`) when it would not exit;
    nothing when the job ended meanwhile."""
    if current.is_terminal:
        return None
    if stopped:
        return transitions.end(
            current,
            Phase.CANCELLED,
            at=end,
            source=SOURCE,
            message=f"Job cancelled: {reason}",
            error=reason,
            cleanup_pending=True,
        )
    return transitions.end(
        current,
        Phase.FAILED,
        at=end,
        source=SOURCE,
        message=f"Job cancellation failed because worker PID {pid} did not exit.",
        error=f"{reason}; worker PID {pid} did not exit",
        error_code=ErrorCode.CANCEL_FAILED,
    )


def _clean_up(store: JobStore, final: Job, stopped: bool, pid: int | None) -> CancelOutcome:
    """Tear down a job this cancel ended (a worker that would not die blocks the teardown)."""
    if not stopped:
        blocked = (
            f"Oracle runtime cleanup is blocked because worker PID {pid} "
            "could not be terminated safely."
        )
        final = record_cleanup(store, final.id, [blocked], source=SOURCE)
        return CancelOutcome(
            final, ErrorCode.CANCEL_FAILED, f"Oracle job {final.id} failed during cancellation."
        )
    warnings = teardown(final, store)
    final = record_cleanup(store, final.id, warnings, source=SOURCE)
    if not warnings:
        promote_queue(store)
    return CancelOutcome(final, "cancelled", f"Cancelled oracle job {final.id}.")
