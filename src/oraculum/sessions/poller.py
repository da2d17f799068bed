"""The poller every live host process of a session runs (and runs once more on each tool call).

One scan: reconcile (skipped when another process is at it), then for each job in the `open`
index that is finished, of this project, not settled and due: claim → re-check who may be told
→ record the target → re-check again → re-read → send through the sink → count the attempt.
A job goes to its own session while that session is live anywhere; when no process of its
session is live, any live session of the same project adopts it. Jobs without a session are
never rebound. Scanning the `open` index, not every job, keeps a scan cheap with 10,000 jobs.
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
from datetime import datetime, timedelta
from pathlib import Path

from oraculum.core.errors import OracleError
from oraculum.jobs import indexes
from oraculum.jobs.model import Job, utc_now
from oraculum.jobs.reconcile import reconcile
from oraculum.jobs.store import JobStore
from oraculum.sessions import claims
from oraculum.sessions.liveness import live_session_keys, session_key
from oraculum.sessions.sinks import Sink
from oraculum.sessions.wakeup import Wakeup, build_wakeup

log = logging.getLogger("oraculum.sessions")


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
    ) -> None:
        self.project_id = project_id
        self.session_id = session_id
        self.sink = sink
        self.store = store or JobStore()
        self.delays = delays
        self.run_reconcile = run_reconcile
        self.liveness_root = liveness_root
        nonce = secrets.token_hex(3)
        self.claimant = f"{session_key(project_id, session_id)}:{os.getpid()}:{nonce}"
        self._in_flight = threading.Lock()
        self.active = True  # a stopped poller abandons a scan at its next check

    @property
    def key(self) -> str:
        return session_key(self.project_id, self.session_id)

    def may_deliver(self, job: Job, live_keys: set[str]) -> bool:
        """Whether this session may be told about ``job`` right now."""
        if job.session_id is None or job.project_id != self.project_id:
            return False
        if job.session_id == self.session_id:
            return True
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
        if self.run_reconcile:
            try:
                reconcile(self.store, lock_timeout=0.05)
            except Exception:  # a reconcile problem must not stop wake-ups
                log.exception("reconcile during a poll failed")
        live = self._live()
        sent: list[Wakeup] = []
        for job_id in indexes.members(indexes.OPEN):
            if not self.active:
                break
            try:
                job = self.store.load(job_id)
            except OracleError:
                continue
            moment = now or utc_now()
            if not claims.wants_wakeup(job, moment, self.delays) or not self.may_deliver(job, live):
                continue
            wakeup = self.deliver(job, now=now)
            if wakeup is not None:
                sent.append(wakeup)
        return sent

    def deliver(self, job: Job, *, now: datetime | None = None) -> Wakeup | None:
        """Run the claim protocol for one candidate; the wake-up if it was sent."""
        at = now or utc_now()
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
            wakeup = build_wakeup(
                current,
                self.store,
                session_id=self.session_id,
                attempt=current.wakeup_attempt_count + 1,
            )
            self.sink(wakeup)
        except BaseException:
            try:
                claims.release(self.store, job.id, self.claimant, now=at)
            except OracleError:
                log.exception("releasing the claim on %s failed", job.id)
            raise
        claims.note_requested(self.store, job.id, self.claimant, now=at)
        return wakeup


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
