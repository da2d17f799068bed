"""Wake-up bookkeeping on the job record: claims with expiry, attempts, settlement.

Every function here is one read-modify-write under the job lock (through
:meth:`JobStore.update` and :func:`transitions.update`), and every decision is re-checked under
that lock, so a caller working from a stale snapshot can never claim, send or count twice.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from oraculum.core.errors import OracleError
from oraculum.jobs import transitions
from oraculum.jobs.model import EventKind, Job
from oraculum.jobs.rules import NOTIFY_CLAIM_TTL, EngineSettings, retention_expired
from oraculum.jobs.runtime import job_settings_config
from oraculum.jobs.store import JobStore

SOURCE = "oracle:wakeup"
_MAX_ATTEMPTS = 3
# Delay before attempt k+1, k being the attempts made so far (measured from the last one).
RETRY_DELAYS: tuple[timedelta, ...] = (
    timedelta(0),
    timedelta(seconds=15),
    timedelta(seconds=60),
)


def _wakeup_due(job: Job, now: datetime, delays: tuple[timedelta, ...] = RETRY_DELAYS) -> bool:
    attempts = job.wakeup_attempt_count
    if attempts >= _MAX_ATTEMPTS:
        return False
    if attempts == 0 or job.wakeup_last_requested_at is None:
        return True
    return now >= job.wakeup_last_requested_at + delays[min(attempts, len(delays) - 1)]


def wants_wakeup(job: Job, now: datetime, delays: tuple[timedelta, ...] = RETRY_DELAYS) -> bool:
    """A finished job of a real session, not yet settled, due, and not about to be pruned.

    Sessionless (legacy) jobs are never woken: they have nobody to wake and are never rebound.
    """
    if not job.is_terminal or job.session_id is None or job.wakeup_settled_at is not None:
        return False
    if not _wakeup_due(job, now, delays):
        return False
    return not retention_expired(job, now, EngineSettings.from_config(job_settings_config(job)))


def _claim_is_live(job: Job, now: datetime) -> bool:
    return job.notify_claimed_at is not None and now - job.notify_claimed_at < NOTIFY_CLAIM_TTL


def owns_claim(job: Job, claimant: str, now: datetime) -> bool:
    return job.notify_claimed_by == claimant and _claim_is_live(job, now)


def _update(store: JobStore, job_id: str, change) -> Job | None:  # type: ignore[no-untyped-def]
    try:
        return store.update(job_id, change)
    except OracleError as error:
        if error.code == "job_not_found":
            return None  # removed meanwhile: nothing left to wake or record
        raise


def try_claim(
    store: JobStore,
    job_id: str,
    claimant: str,
    *,
    now: datetime,
    delays: tuple[timedelta, ...] = RETRY_DELAYS,
) -> Job | None:
    """Claim the job's next wake-up for ``claimant``; None when it is not (or no longer) due or
    another live claim holds it. An expired claim is taken over."""

    def change(job: Job) -> Job | None:
        if not wants_wakeup(job, now, delays):
            return None
        if _claim_is_live(job, now) and job.notify_claimed_by != claimant:
            return None
        return transitions.update(
            job,
            at=now,
            source=SOURCE,
            patch={"notify_claimed_at": now, "notify_claimed_by": claimant},
        )

    job = _update(store, job_id, change)
    if job is None or job.notify_claimed_by != claimant or job.notify_claimed_at != now:
        return None
    return job


def record_target(
    store: JobStore, job_id: str, claimant: str, session_id: str, *, now: datetime
) -> bool:
    """Note which session the wake-up goes to, only while ``claimant`` still owns the claim."""
    owned = {"ok": False}

    def change(job: Job) -> Job | None:
        if not owns_claim(job, claimant, now):
            return None
        owned["ok"] = True
        if job.wakeup_target_session == session_id:
            return None
        adopted = "" if session_id == job.session_id else " (adopted: its session is gone)"
        return transitions.update(
            job,
            at=now,
            source=SOURCE,
            patch={"wakeup_target_session": session_id},
            kind=EventKind.NOTIFICATION,
            message=f"Wake-up target: session {session_id}{adopted}.",
        )

    return _update(store, job_id, change) is not None and owned["ok"]


def note_requested(store: JobStore, job_id: str, claimant: str, *, now: datetime) -> Job | None:
    """Count a sent wake-up and release the claim (a vanished job is tolerated)."""

    def change(job: Job) -> Job:
        attempt = job.wakeup_attempt_count + 1
        patch: dict[str, object] = {
            "wakeup_attempt_count": attempt,
            "wakeup_last_requested_at": now,
        }
        if job.notify_claimed_by == claimant:
            patch.update(notify_claimed_at=None, notify_claimed_by=None)
        return transitions.update(
            job,
            at=now,
            source=SOURCE,
            patch=patch,
            kind=EventKind.WAKEUP,
            message=f"Wake-up reminder requested (attempt {attempt}).",
        )

    return _update(store, job_id, change)


def release(store: JobStore, job_id: str, claimant: str, *, now: datetime) -> None:
    """Drop ``claimant``'s claim; only the owner may."""

    def change(job: Job) -> Job | None:
        if job.notify_claimed_by != claimant:
            return None
        return transitions.update(
            job, at=now, source=SOURCE, patch={"notify_claimed_at": None, "notify_claimed_by": None}
        )

    _update(store, job_id, change)


def settle(
    store: JobStore,
    job_id: str,
    *,
    source: str,
    session_id: str | None,
    now: datetime,
    settle_before_first_attempt: bool = False,
) -> Job | None:
    """Someone looked at a finished job's result.

    After a reminder was sent, this settles the wake-up (no more reminders). Before the first
    one it only records the observation, unless ``settle_before_first_attempt`` (the origin
    session read the result itself, so there is nothing left to tell it).
    """

    def change(job: Job) -> Job | None:
        if not job.is_terminal or job.session_id is None or job.wakeup_settled_at is not None:
            return None
        who = f" in session {session_id}" if session_id else ""
        if job.wakeup_attempt_count > 0 or settle_before_first_attempt:
            return transitions.update(
                job,
                at=now,
                source=source,
                patch={
                    "wakeup_settled_at": now,
                    "wakeup_settled_source": source,
                    "wakeup_settled_session": session_id,
                },
                kind=EventKind.WAKEUP,
                message=f"Wake-up settled by {source}{who}.",
            )
        if job.wakeup_observed_at is not None:
            return None  # the first observation is the one worth keeping
        return transitions.update(
            job,
            at=now,
            source=source,
            patch={
                "wakeup_observed_at": now,
                "wakeup_observed_source": source,
                "wakeup_observed_session": session_id,
            },
            kind=EventKind.WAKEUP,
            message=f"Result observed by {source}{who} before the first wake-up.",
        )

    return _update(store, job_id, change)
