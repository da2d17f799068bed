"""Reconcile: finish what crashed. Run by every command that reads, waits on or submits jobs,
by each worker's watchdog, by the poller, and every poll interval by each long-lived oraculum
process (:class:`ReconcileThread`: the `proc` supervisor, the scheduler runner), so a job whose
worker and watchdog both died ends `worker_lost` within the stale window plus one poll while any
oraculum process lives, and at the first command otherwise.

An active job whose worker is gone, is another process now, never appeared, or stopped
heartbeating becomes failed (or cancelled when a cancel was requested) with the precise reason;
its runtime is torn down, its leases released and the queue promoted. Terminal jobs with
cleanup outstanding get their teardown retried on the backoff schedule.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.fsio import FILE_MODE, ensure_private_dir
from oraculum.core.paths import state_dir
from oraculum.jobs import indexes, transitions
from oraculum.jobs.admission import promote_queue
from oraculum.jobs.locks import named_lock
from oraculum.jobs.model import Job, Phase, Status, utc_now
from oraculum.jobs.process import Liveness, terminate
from oraculum.jobs.rules import EngineSettings, cleanup_due, cleanup_worker_is_stale, stale_reason
from oraculum.jobs.runtime import job_settings_config, record_cleanup, teardown, worker_liveness
from oraculum.jobs.store import JobStore

SOURCE = "oracle:reconcile"

log = logging.getLogger(__name__)


@dataclass
class ReconcileReport:
    recovered: list[str] = field(default_factory=list)
    cleaned: list[str] = field(default_factory=list)
    promoted: list[str] = field(default_factory=list)
    skipped_busy: bool = False


def reconcile(store: JobStore | None = None, *, lock_timeout: float = 0.05) -> ReconcileReport:
    """One pass over the jobs that still need watching. Skips quietly when another process is
    already reconciling."""
    store = store or JobStore()
    report = ReconcileReport()
    try:
        with named_lock("reconcile", timeout=lock_timeout):
            _pass(store, report)
    except OracleError as error:
        if error.code != ErrorCode.LOCK_TIMEOUT:
            raise
        report.skipped_busy = True
        return report
    if report.recovered or report.cleaned:
        try:
            report.promoted = promote_queue(store, lock_timeout=5.0)
        except OracleError as error:
            if error.code != ErrorCode.LOCK_TIMEOUT:
                raise
    return report


def reconcile_before_reading(store: JobStore) -> None:
    """The cheap pass a reader runs first, so what it shows is not a dead worker's last word.

    A reader never fails because of it: whatever went wrong is logged, and the next reader,
    watchdog or poller tries again.
    """
    try:
        reconcile(store)
    except Exception:
        log.exception("reconcile before reading failed")


# Periodic passes ------------------------------------------------------------------------------

_STAMP = "reconcile.last"  # its mtime: when any process last finished a periodic pass


def _stamp() -> Path:
    return state_dir() / _STAMP


def _last_pass_age() -> float | None:
    try:
        return time.time() - _stamp().stat().st_mtime
    except OSError:
        return None


def _touch_stamp() -> None:
    path = _stamp()
    ensure_private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)
    try:
        os.utime(fd)
    finally:
        os.close(fd)


def reconcile_due(
    store: JobStore | None = None, *, every_s: float, runtime_dir: Path | None = None
) -> ReconcileReport | None:
    """One pass unless any process finished one less than ``every_s`` ago (None then), so
    many long-lived processes together cost one pass per interval. With ``runtime_dir`` the
    pass also removes the runtime profiles left there (see :mod:`oraculum.jobs.leftovers`)."""
    age = _last_pass_age()
    if age is not None and 0 <= age < every_s:
        return None
    store = store or JobStore()
    report = reconcile(store)
    if report.skipped_busy:
        return report
    if runtime_dir is not None:
        from oraculum.jobs.leftovers import remove_orphan_profiles

        report.cleaned += [path.name for path in remove_orphan_profiles(store, runtime_dir)]
    _touch_stamp()
    return report


class ReconcileThread(threading.Thread):
    """Runs :func:`reconcile_due` every poll interval (``poller.intervalMs`` of the global
    config unless given) for the life of a long-lived process. Never raises: a failed pass
    (a read-only jobs directory, say) is logged and the next one tries again."""

    def __init__(self, every_s: float | None = None, *, store: JobStore | None = None) -> None:
        super().__init__(name="oraculum-reconcile", daemon=True)
        self.every_s = every_s
        self.store = store
        self.stopped = threading.Event()

    def _settings(self) -> tuple[float, Path | None]:
        from oraculum.core.config import Config, load_config

        try:
            config = load_config().config
        except OracleError:
            config = Config()
        every = self.every_s if self.every_s is not None else config.poller.interval_ms / 1000
        return every, config.browser.runtime_profiles_dir

    def run(self) -> None:
        every_s, runtime_dir = self._settings()
        while not self.stopped.wait(every_s):
            try:
                reconcile_due(self.store, every_s=every_s, runtime_dir=runtime_dir)
            except Exception:
                log.exception("periodic reconcile failed")

    def stop(self) -> None:
        self.stopped.set()


def _pass(store: JobStore, report: ReconcileReport) -> None:
    now = utc_now()
    for job_id in indexes.members(indexes.OPEN):
        try:
            job = store.load(job_id)
        except OracleError as error:
            # A job being created is marked before its job.json exists: keep young markers.
            if error.code == ErrorCode.JOB_NOT_FOUND and not indexes.marked_within(
                indexes.OPEN, job_id, 60.0
            ):
                indexes.unmark(indexes.OPEN, job_id)
            continue  # a corrupt job is reported by status, not touched here
        if job.status == Status.QUEUED:
            continue
        settings = EngineSettings.from_config(job_settings_config(job))
        worker = worker_liveness(job)
        if job.is_active:
            reason = stale_reason(job, now, worker, settings)
            if reason and recover_stale(store, job, reason, settings):
                report.recovered.append(job.id)
            continue
        if worker == Liveness.ALIVE and not cleanup_worker_is_stale(job, now, settings):
            continue  # its worker is still finishing up
        if cleanup_due(job, now):
            if (
                worker == Liveness.ALIVE
                and job.worker
                and not terminate(job.worker, grace_s=settings.terminate_grace_s)
            ):
                continue
            record_cleanup(store, job.id, teardown(job, store), source=SOURCE)
            report.cleaned.append(job.id)
        elif not job.cleanup_pending and not job.cleanup_warnings and not _wakeup_outstanding(job):
            indexes.unmark(indexes.OPEN, job.id)


def _wakeup_outstanding(job: Job) -> bool:
    """A finished job whose session has not yet been told stays watched for the poller."""
    return (
        job.session_id is not None
        and job.council_id is None  # its council is told, not the session
        and job.wakeup_settled_at is None
        and job.wakeup_attempt_count < 3
    )


def recover_stale(store: JobStore, job: Job, reason: str, settings: EngineSettings) -> bool:
    """Terminate the stale worker, then end the job failed (or cancelled, when asked)."""
    terminated = True
    if job.worker is not None and worker_liveness(job) == Liveness.ALIVE:
        terminated = terminate(job.worker, grace_s=settings.terminate_grace_s)
    at = utc_now()

    def change(current: Job) -> Job | None:
        if current.is_terminal or current.worker != job.worker:
            return None  # it finished (or was handed on) while we looked: keep what it wrote
        if not terminated and stale_reason(current, at, worker_liveness(current), settings) is None:
            return None
        suffix = (
            f" Terminated stale worker PID {current.worker.pid}."
            if current.worker and terminated
            else ""
        )
        if current.cancel_requested_at is not None and terminated:
            return transitions.end(
                current,
                Phase.CANCELLED,
                at=at,
                source=SOURCE,
                message=f"Recovered requested cancellation: {reason}.{suffix}",
                error=current.cancel_reason or "Cancelled by user",
                cleanup_pending=True,
            )
        return transitions.end(
            current,
            Phase.FAILED,
            at=at,
            source=SOURCE,
            message=f"Recovered stale job: {reason}.{suffix}",
            error=f"Recovered stale job: {reason}.",
            error_code=ErrorCode.WORKER_LOST,
            cleanup_pending=terminated,
        )

    if terminated:
        # Its worker died before giving the space back: on a full disk it is what lets the
        # ending below be written.
        store.release_reserve(job.id)
    updated = store.update(job.id, change)
    recovered = (
        updated.is_terminal
        and bool(updated.lifecycle_events)
        and updated.lifecycle_events[-1].source == SOURCE
        and updated.lifecycle_events[-1].at == at
    )
    if not recovered:
        return False  # it finished on its own meanwhile: what it wrote stands
    if terminated:
        record_cleanup(store, job.id, teardown(updated, store), source=SOURCE)
    return True
