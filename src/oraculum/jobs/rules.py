"""Pure decisions of the job engine: who blocks admission, what is stale, what may be pruned,
how cleanup warnings accumulate and when cleanup is retried. No I/O here."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from oraculum.core.config import Config
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.jobs.model import Job, PromptSendState, Status
from oraculum.jobs.process import Liveness

MAX_CLEANUP_WARNINGS = 8
MAX_WARNING_CHARS = 500
MAX_CLEANUP_ATTEMPTS = 5
# Delays before the 2nd, 3rd, 4th and 5th cleanup attempts.
CLEANUP_RETRY_DELAYS = (
    timedelta(seconds=15),
    timedelta(minutes=1),
    timedelta(minutes=5),
    timedelta(minutes=15),
)
NOTIFY_CLAIM_TTL = timedelta(seconds=60)


@dataclass(frozen=True)
class EngineSettings:
    """The engine's knobs, taken from a job's config snapshot or the current config."""

    max_concurrent_jobs: int
    queue_depth: int
    max_queued_archive_bytes: int
    no_worker_grace: timedelta
    stale_heartbeat: timedelta
    heartbeat_interval: timedelta
    terminate_grace_s: float
    complete_retention: timedelta
    failed_retention: timedelta
    wakeup_grace: timedelta

    @classmethod
    def from_config(cls, config: Config) -> EngineSettings:
        return cls(
            max_concurrent_jobs=config.browser.max_concurrent_jobs,
            queue_depth=config.queue_depth,
            max_queued_archive_bytes=config.max_queued_archive_bytes,
            no_worker_grace=_ms(config.worker.no_worker_grace_ms),
            stale_heartbeat=_ms(config.worker.stale_heartbeat_ms),
            heartbeat_interval=_ms(config.worker.heartbeat_interval_ms),
            terminate_grace_s=config.worker.terminate_grace_ms / 1000,
            complete_retention=_ms(config.cleanup.complete_job_retention_ms),
            failed_retention=_ms(config.cleanup.failed_job_retention_ms),
            wakeup_grace=_ms(config.cleanup.wakeup_grace_ms),
        )


def _ms(value: int) -> timedelta:
    return timedelta(milliseconds=value)


def blocks_admission(job: Job, worker: Liveness | None) -> bool:
    """Whether ``job`` still holds its capacity slot (and its conversation).

    Warnings alone do not: a finished job whose cleanup only left warnings frees its slot.
    """
    return job.is_active or job.cleanup_pending or worker == Liveness.ALIVE


def stale_reason(
    job: Job, now: datetime, worker: Liveness | None, settings: EngineSettings
) -> str | None:
    """Why an active job can no longer finish on its own, or None while it still can."""
    if not job.is_active:
        return None
    baseline = job.heartbeat_at or job.submitted_at or job.created_at
    quiet = now - baseline
    if job.worker is None:
        if quiet > settings.no_worker_grace:
            return (
                f"Oracle job is active but has no worker "
                f"({int(quiet.total_seconds())}s after submit)"
            )
        return None
    if worker == Liveness.DEAD:
        return f"Oracle worker PID {job.worker.pid} is no longer running"
    if worker == Liveness.MISMATCH:
        return f"Oracle worker PID {job.worker.pid} no longer matches the recorded process identity"
    if quiet > settings.stale_heartbeat:
        return f"Oracle worker heartbeat is stale ({int(quiet.total_seconds())}s since last update)"
    return None


def cleanup_worker_is_stale(job: Job, now: datetime, settings: EngineSettings) -> bool:
    """A terminal job's worker that is still alive but has stopped making progress."""
    baseline = job.last_cleanup_at or job.heartbeat_at or job.completed_at or job.phase_at
    return now - baseline > settings.stale_heartbeat


def merge_warnings(old: list[str] | None, new: list[str]) -> list[str]:
    """Deduplicated, in first-seen order, capped in count and length."""
    merged: list[str] = []
    for warning in [*(old or []), *new]:
        text = (
            warning if len(warning) <= MAX_WARNING_CHARS else warning[: MAX_WARNING_CHARS - 1] + "…"
        )
        if text not in merged:
            merged.append(text)
    return merged[-MAX_CLEANUP_WARNINGS:]


def cleanup_outcome(job: Job, warnings: list[str], at: datetime) -> dict[str, object]:
    """The job fields a teardown attempt leaves behind (a patch for :func:`transitions.update`).

    Warnings never go into ``error``: they describe leftovers, not the job's outcome.
    """
    if not warnings:
        return {
            "cleanup_pending": False,
            "cleanup_warnings": None,
            "cleanup_retry_at": None,
            "last_cleanup_at": at,
        }
    attempts = job.cleanup_attempt_count + 1
    retry_at = at + CLEANUP_RETRY_DELAYS[attempts - 1] if attempts < MAX_CLEANUP_ATTEMPTS else None
    return {
        "cleanup_pending": False,
        "cleanup_warnings": merge_warnings(job.cleanup_warnings, warnings),
        "cleanup_attempt_count": attempts,
        "cleanup_retry_at": retry_at,
        "last_cleanup_at": at,
    }


def cleanup_due(job: Job, now: datetime) -> bool:
    """Whether reconcile should run teardown for this terminal job now."""
    if not job.is_terminal:
        return False
    if job.cleanup_pending:
        return True
    return (
        bool(job.cleanup_warnings)
        and job.cleanup_retry_at is not None
        and job.cleanup_retry_at <= now
    )


@dataclass(frozen=True)
class PruneBlocker:
    reason: str
    retry_at: datetime | None = None


def removal_blocker(
    job: Job,
    now: datetime,
    worker: Liveness | None,
    settings: EngineSettings,
    *,
    force: bool = False,
) -> PruneBlocker | None:
    """Why a terminal job's directory may not be removed right now (None: it may).

    A live worker, pending cleanup and an open job always block. A wake-up in flight or sent
    recently blocks only until the job is read (its reader has what the message pointed at)
    and never with ``force`` (the person asking knows nobody else needs the files)."""
    if not job.is_terminal:
        return PruneBlocker(f"job is {job.status.value}, not finished; cancel it first")
    if worker == Liveness.ALIVE:
        pid = job.worker.pid if job.worker else "?"
        return PruneBlocker(f"worker PID {pid} is still live")
    if job.cleanup_pending:
        return PruneBlocker("its runtime cleanup is still pending")
    if force or job.wakeup_settled_at is not None:
        return None
    if job.notify_claimed_at is not None and now - job.notify_claimed_at < NOTIFY_CLAIM_TTL:
        return PruneBlocker(
            "a wake-up delivery is in flight", job.notify_claimed_at + NOTIFY_CLAIM_TTL
        )
    if job.wakeup_last_requested_at is not None:
        grace_end = job.wakeup_last_requested_at + settings.wakeup_grace
        if now < grace_end:
            return PruneBlocker(
                "a wake-up was sent recently and may still point at its files "
                "(read the job first, or clean it with --force)",
                grace_end,
            )
    return None


def retention_expired(job: Job, now: datetime, settings: EngineSettings) -> bool:
    keep = settings.failed_retention if job.status == Status.FAILED else settings.complete_retention
    finished = job.completed_at or job.created_at
    return now - finished >= keep


def recollect_refusal(job: Job) -> OracleError | None:
    """Why ``job`` cannot be recollected (None: it can).

    A completed job can, and so can a failed one whose prompt the provider accepted in a known
    conversation (its worker died, the site went away, the disk filled): its answer may be
    there, and recollecting it never sends anything."""
    revivable = job.status == Status.FAILED and job.prompt_send_state == PromptSendState.ACCEPTED
    if job.status != Status.COMPLETE and not revivable:
        return OracleError(
            ErrorCode.RECOLLECT_NOT_COMPLETE,
            f"Oracle job {job.id} is {job.status.value}"
            + (f" and its prompt was {job.prompt_send_state.value}" if not revivable else "")
            + "; only a completed job, or a failed one whose prompt was accepted, can be "
            "recollected.",
            rejected_value=job.id,
            suggested_next_step="Read it as it is, or submit the question again.",
        )
    if not job.chat_url:
        return OracleError(
            ErrorCode.RECOLLECT_NO_CONVERSATION,
            f"Oracle job {job.id} has no saved conversation URL to recollect from.",
            rejected_value=job.id,
        )
    return None
