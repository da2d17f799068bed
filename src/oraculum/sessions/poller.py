"""The poller every live host process of a session runs (and runs once more on each tool call).

One scan: reconcile (skipped when another process is at it or did it within a second), then
for each job in the `open` index that is finished, of this project, not settled and due: claim
→ re-check who may be told → record the target → re-check again → re-read → send through the
sink → count the attempt.
A job goes to its own session while that session is live anywhere; when no process of its
session is live, a live session of the same project that adopts (an agent host's poller, or
`oraculum wait --adopt`) may take it. A plain `wait` never adopts: a new shell session is not
told about the demo's or yesterday's jobs. Jobs without a session, and demo jobs, are never
rebound. Scanning the `open` index, not every job, keeps a scan cheap with 10,000 jobs.

Delivery is two steps, so a host decides when a wake-up counts as delivered: :meth:`prepare`
runs the claim protocol up to the message (the claim stays held), :meth:`commit` counts the
attempt and releases the claim, :meth:`abandon` releases it uncounted. A sink (`oraculum
wait`, a hook) delivers at once, so :meth:`scan` does all three; the MCP server shows a
wake-up only in a tool result, so it prepares while building the result and commits once the
result is made (:meth:`collect`). Until then the job record itself is the pending inbox: a
host stopped in between leaves the wake-up due for the next one.

Background tasks' notices (:mod:`oraculum.tasks`) ride the same path: a scan, a collect and
:meth:`pending` also take the due notices of this project, with the same adoption rules and
the same claim protocol (:mod:`oraculum.sessions.claims`); committing one settles it, so each
notice reaches exactly one session once.
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, timedelta
from pathlib import Path

from oraculum.core.errors import OracleError
from oraculum.core.surface import Surface
from oraculum.jobs import indexes
from oraculum.jobs.model import Job, utc_now
from oraculum.jobs.reconcile import reconcile_due
from oraculum.jobs.store import JobStore
from oraculum.sessions import claims
from oraculum.sessions.liveness import live_session_keys, session_key
from oraculum.sessions.sinks import Sink
from oraculum.sessions.wakeup import Wakeup, build_notice_wakeup, build_wakeup
from oraculum.tasks.notices import Notice, NoticeStore

log = logging.getLogger("oraculum.sessions")

# A scan runs on every tool call too: reconcile at most this often across every poller.
RECONCILE_GAP_S = 1.0

# The request source of `oraculum demo`'s jobs (service.demo submits with it).
DEMO_SOURCE = "demo"

# What a session may be told about: a finished job or a background task's notice.
Due = Job | Notice


def _adoptable(item: Due) -> bool:
    """A demo job belongs to the demo alone: nobody else's session is told about it."""
    return not (isinstance(item, Job) and item.request_source == DEMO_SOURCE)


# Run after each scan's reconcile with (project id, store): the service layer's council
# advance (a council whose last member ended posts its one notice, delivered like any). The
# surfaces that make pollers pass it; sessions cannot import the service layer.
ScanHook = Callable[[str, JobStore], None]


class Poller:
    def __init__(
        self,
        project_id: str,
        session_id: str,
        sink: Sink,
        *,
        store: JobStore | None = None,
        delays: tuple[timedelta, ...] = claims.RETRY_DELAYS,
        run_reconcile: bool = True,
        liveness_root: Path | None = None,
        surface: Surface = "cli",
        notices: NoticeStore | None = None,
        adopt: bool = True,
        after_reconcile: ScanHook | None = None,
    ) -> None:
        self.project_id = project_id
        self.session_id = session_id
        self.sink = sink
        self.store = store or JobStore()
        self.notices = notices or NoticeStore()
        self.delays = delays
        self.run_reconcile = run_reconcile
        self.liveness_root = liveness_root
        self.surface = surface  # who reads the message: it names that surface's commands
        self.adopt = adopt  # may take the jobs (and notices) of this project's gone sessions
        self.after_reconcile = after_reconcile
        nonce = secrets.token_hex(3)
        self.claimant = f"{session_key(project_id, session_id)}:{os.getpid()}:{nonce}"
        self._in_flight = threading.Lock()
        self.active = True  # a stopped poller abandons a scan at its next check

    @property
    def key(self) -> str:
        return session_key(self.project_id, self.session_id)

    def may_deliver(self, job: Due, live_keys: set[str]) -> bool:
        """Whether this session may be told about ``job`` (or a notice) right now."""
        if job.session_id is None or job.project_id != self.project_id:
            return False
        if job.session_id == self.session_id:
            return True
        if not self.adopt or not _adoptable(job):
            return False
        return session_key(job.project_id, job.session_id) not in live_keys

    def _live(self) -> set[str]:
        keys = live_session_keys(root=self.liveness_root)
        keys.add(self.key)  # we are live while we scan, whether or not we hold a file
        return keys

    def scan(self, now: datetime | None = None) -> list[Wakeup]:
        """One pass; returns the wake-ups it sent. Overlapping scans in one process skip."""
        if not self._in_flight.acquire(blocking=False):
            return []
        try:
            return self._scan(now)
        finally:
            self._in_flight.release()

    def _scan(self, now: datetime | None) -> list[Wakeup]:
        sent: list[Wakeup] = []
        for job in self._all_due(now):
            wakeup = self.deliver(job, now=now)
            if wakeup is not None:
                sent.append(wakeup)
        return sent

    def _due(self, now: datetime | None) -> Iterator[Job]:
        """Reconcile, then every finished job this session may be told about now."""
        if self.run_reconcile:
            try:
                reconcile_due(self.store, every_s=RECONCILE_GAP_S)
            except Exception:  # a reconcile problem must not stop wake-ups
                log.exception("reconcile during a poll failed")
            if self.after_reconcile is not None:
                try:
                    self.after_reconcile(self.project_id, self.store)
                except Exception:  # a council problem must not stop wake-ups
                    log.exception("the scan hook failed during a poll")
        live = self._live()
        for job_id in indexes.members(indexes.OPEN):
            if not self.active:
                return
            try:
                job = self.store.load(job_id)
            except OracleError:
                continue
            moment = now or utc_now()
            if claims.wants_wakeup(job, moment, self.delays) and self.may_deliver(job, live):
                yield job

    def _due_notices(self, now: datetime | None) -> Iterator[Notice]:
        """Every unsettled notice of this project this session may be told about now."""
        live = self._live()
        for notice in self.notices.notices(self.project_id):
            if not self.active:
                return
            moment = now or utc_now()
            if claims.wants_notice(notice, moment, self.delays) and self.may_deliver(notice, live):
                yield notice

    def _all_due(self, now: datetime | None) -> Iterator[Due]:
        yield from self._due(now)
        yield from self._due_notices(now)

    def pending(self, now: datetime | None = None) -> list[Due]:
        """The jobs (and notices) whose wake-up this session would get now, without claiming
        anything (a host announces them, or knows a wait is over, and hands them out later)."""
        with self._in_flight:
            return list(self._all_due(now))

    def collect(self, now: datetime | None = None) -> list[Wakeup]:
        """Prepare the wake-up of every job due for this session (claims held): the caller
        shows them, then :meth:`commit`s each (or :meth:`abandon`s them if it could not)."""
        with self._in_flight:
            prepared = [self.prepare(job, now=now) for job in self._all_due(now)]
        return newest_per_job([w for w in prepared if w is not None])

    def deliver(self, job: Due, *, now: datetime | None = None) -> Wakeup | None:
        """Run the claim protocol for one candidate and send it through the sink; the wake-up
        if it was sent (and counted)."""
        wakeup = self.prepare(job, now=now)
        if wakeup is None:
            return None
        try:
            self.sink(wakeup)
        except BaseException:
            self.abandon(wakeup, now=now)
            raise
        self.commit(wakeup, now=now)
        return wakeup

    def prepare(self, job: Due, *, now: datetime | None = None) -> Wakeup | None:
        """Claim ``job``'s next wake-up (or a notice's delivery) and build its message; None
        when this session may not (or need not) be told now. The claim stays held until
        :meth:`commit` or :meth:`abandon` (or until it expires, when another host takes it
        over)."""
        at = now or utc_now()
        if isinstance(job, Notice):
            return self._prepare_notice(job, at)
        claimed = claims.try_claim(self.store, job.id, self.claimant, now=at, delays=self.delays)
        if claimed is None:
            return None
        try:
            # The origin may have come back to life since the candidate list was made.
            if not self.active or not self.may_deliver(claimed, self._live()):
                claims.release(self.store, job.id, self.claimant, now=at)
                return None
            if not claims.record_target(self.store, job.id, self.claimant, self.session_id, now=at):
                claims.release(self.store, job.id, self.claimant, now=at)
                return None
            if not self.active or not self.may_deliver(claimed, self._live()):
                claims.release(self.store, job.id, self.claimant, now=at)
                return None
            try:
                current = self.store.load(job.id)
            except OracleError:
                return None  # removed (or unreadable) meanwhile: nothing to point at
            if not claims.wants_wakeup(current, at, self.delays) or not claims.owns_claim(
                current, self.claimant, at
            ):
                claims.release(self.store, job.id, self.claimant, now=at)
                return None
            return build_wakeup(
                current,
                self.store,
                session_id=self.session_id,
                attempt=current.wakeup_attempt_count + 1,
                surface=self.surface,
            )
        except BaseException:
            self._release(job.id, at)
            raise

    def _prepare_notice(self, notice: Notice, at: datetime) -> Wakeup | None:
        records = self._notice_records()
        claimed = claims.take(
            records,
            notice.id,
            self.claimant,
            now=at,
            wanted=lambda current: claims.wants_notice(current, at, self.delays),
        )
        if claimed is None:
            return None
        try:
            # The owner may have come back to life since the candidate list was made.
            if not self.active or not self.may_deliver(claimed, self._live()):
                claims.drop(records, notice.id, self.claimant, now=at)
                return None
            attempt = claimed.attempt_count + 1
            return build_notice_wakeup(claimed, session_id=self.session_id, attempt=attempt)
        except BaseException:
            self._release_notice(notice.id, at)
            raise

    def _notice_records(self) -> claims.NoticeRecords:
        return claims.NoticeRecords(self.notices, self.project_id)

    def commit(self, wakeup: Wakeup, *, now: datetime | None = None) -> None:
        """The wake-up reached its reader: count the attempt and release the claim (a
        notice's delivery also settles it)."""
        at = now or utc_now()
        if wakeup.is_notice:
            records = self._notice_records()
            claims.count(records, wakeup.job_id, self.claimant, now=at, session_id=self.session_id)
            return
        claims.note_requested(self.store, wakeup.job_id, self.claimant, now=at)

    def abandon(self, wakeup: Wakeup, *, now: datetime | None = None) -> None:
        """The wake-up never went out: release the claim, count nothing (a later scan, here
        or in another host of the session, retries it)."""
        if wakeup.is_notice:
            self._release_notice(wakeup.job_id, now or utc_now())
        else:
            self._release(wakeup.job_id, now or utc_now())

    def _release(self, job_id: str, at: datetime) -> None:
        try:
            claims.release(self.store, job_id, self.claimant, now=at)
        except OracleError:
            log.exception("releasing the claim on %s failed", job_id)

    def _release_notice(self, notice_id: str, at: datetime) -> None:
        try:
            claims.drop(self._notice_records(), notice_id, self.claimant, now=at)
        except OracleError:
            log.exception("releasing the claim on %s failed", notice_id)


def newest_per_job(wakeups: Iterable[Wakeup]) -> list[Wakeup]:
    """One wake-up per job (its newest attempt), in the order the jobs first appear."""
    newest: dict[str, Wakeup] = {}
    for wakeup in wakeups:
        kept = newest.get(wakeup.job_id)
        if kept is None or wakeup.attempt >= kept.attempt:
            newest[wakeup.job_id] = wakeup
    return list(newest.values())


class PollerThread(threading.Thread):
    """Runs :meth:`Poller.scan` now and then every ``interval_s`` until stopped."""

    def __init__(self, poller: Poller, interval_s: float) -> None:
        super().__init__(name=f"oraculum-poller-{poller.session_id}", daemon=True)
        self.poller = poller
        self.interval_s = interval_s
        self.stopped = threading.Event()

    def run(self) -> None:
        while True:
            try:
                self.poller.scan()
            except Exception:  # logged, never thrown to the host
                log.exception("wake-up scan failed")
            if self.stopped.wait(self.interval_s):
                return

    def stop(self) -> None:
        self.poller.active = False
        self.stopped.set()
