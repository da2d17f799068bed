"""Wake-up bookkeeping: claims with expiry, attempts, settlement — one protocol for the two
things a session is told about, finished jobs and background tasks' notices.

A record is claimable through a :class:`Records` adapter: how to read its claim state, how to
run one read-modify-write under its lock, and how to write a claim, a release and a counted
delivery. :func:`take`, :func:`count` and :func:`drop` are the protocol; every decision in them
is re-checked under the record's lock, so a caller working from a stale snapshot can never
claim, send or count twice. Jobs (through :meth:`JobStore.update` and
:func:`transitions.update`) and notices (through :meth:`NoticeStore.update`) are its two
adapters; a notice is settled by its counted delivery, a job only once its result is read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Generic, Protocol, TypeVar

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.jobs import transitions
from oraculum.jobs.model import EventKind, Job
from oraculum.jobs.rules import NOTIFY_CLAIM_TTL, EngineSettings, retention_expired
from oraculum.jobs.runtime import job_settings_config
from oraculum.jobs.store import JobStore
from oraculum.tasks.notices import Notice, NoticeStore

SOURCE = "oracle:wakeup"
_MAX_ATTEMPTS = 3
# Delay before attempt k+1, k being the attempts made so far (measured from the last one).
RETRY_DELAYS: tuple[timedelta, ...] = (
    timedelta(0),
    timedelta(seconds=15),
    timedelta(seconds=60),
)

R = TypeVar("R")


@dataclass(frozen=True)
class ClaimState:
    """The delivery bookkeeping every claimable record carries."""

    claimed_at: datetime | None
    claimed_by: str | None
    attempts: int
    last_requested_at: datetime | None


class Records(Protocol, Generic[R]):
    """How the protocol reads and writes one kind of record."""

    def state(self, record: R) -> ClaimState: ...

    def update(self, record_id: str, change: Callable[[R], R | None]) -> R | None:
        """Run ``change`` under the record's lock; the record after it (None: gone)."""
        ...

    def claimed(self, record: R, claimant: str, now: datetime) -> R: ...

    def released(self, record: R, now: datetime) -> R: ...

    def counted(self, record: R, claimant: str, now: datetime, session_id: str | None) -> R:
        """One delivery counted (and the claim released when ``claimant`` holds it)."""
        ...


def is_due(state: ClaimState, now: datetime, delays: tuple[timedelta, ...] = RETRY_DELAYS) -> bool:
    """Attempts left, and the retry delay after the last one has passed."""
    if state.attempts >= _MAX_ATTEMPTS:
        return False
    if state.attempts == 0 or state.last_requested_at is None:
        return True
    return now >= state.last_requested_at + delays[min(state.attempts, len(delays) - 1)]


def claim_is_live(state: ClaimState, now: datetime) -> bool:
    return state.claimed_at is not None and now - state.claimed_at < NOTIFY_CLAIM_TTL


def holds(state: ClaimState, claimant: str, now: datetime) -> bool:
    return state.claimed_by == claimant and claim_is_live(state, now)


def take(
    records: Records[R],
    record_id: str,
    claimant: str,
    *,
    now: datetime,
    wanted: Callable[[R], bool],
) -> R | None:
    """Claim the record's next delivery for ``claimant``; None when it is not (or no longer)
    ``wanted`` or another live claim holds it. An expired claim is taken over."""

    def change(record: R) -> R | None:
        state = records.state(record)
        if not wanted(record):
            return None
        if claim_is_live(state, now) and state.claimed_by != claimant:
            return None
        return records.claimed(record, claimant, now)

    record = records.update(record_id, change)
    if record is None:
        return None
    state = records.state(record)
    if state.claimed_by != claimant or state.claimed_at != now:
        return None
    return record


def count(
    records: Records[R],
    record_id: str,
    claimant: str,
    *,
    now: datetime,
    session_id: str | None = None,
) -> R | None:
    """Count a sent delivery and release the claim (a vanished record is tolerated)."""
    return records.update(
        record_id, lambda record: records.counted(record, claimant, now, session_id)
    )


def drop(records: Records[R], record_id: str, claimant: str, *, now: datetime) -> None:
    """Drop ``claimant``'s claim; only the owner may."""

    def change(record: R) -> R | None:
        if records.state(record).claimed_by != claimant:
            return None
        return records.released(record, now)

    records.update(record_id, change)


# Jobs ----------------------------------------------------------------------------------------


def _job_state(job: Job) -> ClaimState:
    return ClaimState(
        job.notify_claimed_at,
        job.notify_claimed_by,
        job.wakeup_attempt_count,
        job.wakeup_last_requested_at,
    )


class JobRecords:
    """The protocol over job records: every write is a transition under the job lock."""

    def __init__(self, store: JobStore) -> None:
        self.store = store

    def state(self, record: Job) -> ClaimState:
        return _job_state(record)

    def update(self, record_id: str, change: Callable[[Job], Job | None]) -> Job | None:
        try:
            return self.store.update(record_id, change)
        except OracleError as error:
            if error.code == ErrorCode.JOB_NOT_FOUND:
                return None  # removed meanwhile: nothing left to wake or record
            raise

    def claimed(self, record: Job, claimant: str, now: datetime) -> Job:
        patch = {"notify_claimed_at": now, "notify_claimed_by": claimant}
        return transitions.update(record, at=now, source=SOURCE, patch=patch)

    def released(self, record: Job, now: datetime) -> Job:
        patch = {"notify_claimed_at": None, "notify_claimed_by": None}
        return transitions.update(record, at=now, source=SOURCE, patch=patch)

    def counted(self, record: Job, claimant: str, now: datetime, session_id: str | None) -> Job:
        attempt = record.wakeup_attempt_count + 1
        patch: dict[str, object] = {
            "wakeup_attempt_count": attempt,
            "wakeup_last_requested_at": now,
        }
        if record.notify_claimed_by == claimant:
            patch.update(notify_claimed_at=None, notify_claimed_by=None)
        return transitions.update(
            record,
            at=now,
            source=SOURCE,
            patch=patch,
            kind=EventKind.WAKEUP,
            message=f"Wake-up reminder requested (attempt {attempt}).",
        )


def wants_wakeup(job: Job, now: datetime, delays: tuple[timedelta, ...] = RETRY_DELAYS) -> bool:
    """A finished job of a real session, not yet settled, due, not a council's member, and
    not about to be pruned.

    Sessionless (legacy) jobs are never woken: they have nobody to wake and are never rebound.
    """
    if not job.is_terminal or job.session_id is None or job.wakeup_settled_at is not None:
        return False
    if job.council_id is not None:  # its council wakes the session once, for every member
        return False
    if not is_due(_job_state(job), now, delays):
        return False
    return not retention_expired(job, now, EngineSettings.from_config(job_settings_config(job)))


def owns_claim(job: Job, claimant: str, now: datetime) -> bool:
    return holds(_job_state(job), claimant, now)


def _update(store: JobStore, job_id: str, change) -> Job | None:  # type: ignore[no-untyped-def]
    return JobRecords(store).update(job_id, change)


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
    return take(
        JobRecords(store),
        job_id,
        claimant,
        now=now,
        wanted=lambda job: wants_wakeup(job, now, delays),
    )


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
    return count(JobRecords(store), job_id, claimant, now=now)


def release(store: JobStore, job_id: str, claimant: str, *, now: datetime) -> None:
    """Drop ``claimant``'s claim; only the owner may."""
    drop(JobRecords(store), job_id, claimant, now=now)


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


# Notices -------------------------------------------------------------------------------------


def _notice_state(notice: Notice) -> ClaimState:
    return ClaimState(
        notice.claimed_at, notice.claimed_by, notice.attempt_count, notice.last_requested_at
    )


class NoticeRecords:
    """The protocol over one project's notices. A counted delivery settles the notice (which
    removes it): a notice is told exactly once."""

    def __init__(self, store: NoticeStore, project_id: str) -> None:
        self.store = store
        self.project_id = project_id

    def state(self, record: Notice) -> ClaimState:
        return _notice_state(record)

    def update(self, record_id: str, change: Callable[[Notice], Notice | None]) -> Notice | None:
        return self.store.update(self.project_id, record_id, change)

    def claimed(self, record: Notice, claimant: str, now: datetime) -> Notice:
        return replace(record, claimed_at=now, claimed_by=claimant)

    def released(self, record: Notice, now: datetime) -> Notice:
        return replace(record, claimed_at=None, claimed_by=None)

    def counted(
        self, record: Notice, claimant: str, now: datetime, session_id: str | None
    ) -> Notice:
        return replace(
            record,
            attempt_count=record.attempt_count + 1,
            last_requested_at=now,
            claimed_at=None,
            claimed_by=None,
            target_session=session_id,
            settled_at=now,
        )


def wants_notice(
    notice: Notice, now: datetime, delays: tuple[timedelta, ...] = RETRY_DELAYS
) -> bool:
    """A notice not yet settled whose delivery is due."""
    return notice.settled_at is None and is_due(_notice_state(notice), now, delays)


def owns_notice_claim(notice: Notice, claimant: str, now: datetime) -> bool:
    return holds(_notice_state(notice), claimant, now)
