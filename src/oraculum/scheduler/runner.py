"""The runner: one detached process per user that owns the store's APScheduler 3 scheduler.

APScheduler 3 supports one scheduler process per job store, so nothing else touches
``apscheduler_jobs``: ``submit`` and ``cancel`` write ``oraculum_schedules`` rows and the runner
moves them into (or out of) its scheduler a few times a second. The runner is a singleton by an
``flock`` (the kernel drops it when the runner dies); it exits when no schedule has a future
occurrence and nothing runs, under the submit lock, so a submit either sees it alive or is seen
by it.

Occurrences go through :class:`OccurrenceExecutor` instead of APScheduler's ``run_job``, so the
runner decides for each fire time: late past the grace → ``missed`` (never run late);
otherwise claim the fire time in the store (unique: never run twice), run the payload, record
the outcome and post the wake. A fire time whose predecessor still runs is ``skipped``
(``max_instances=1``). A fire time found ``running`` at start-up belonged to a runner that died:
it becomes ``unknown`` and is not retried.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from concurrent.futures import Future
from datetime import UTC, datetime
from typing import Any

from apscheduler.events import EVENT_JOB_MAX_INSTANCES, EVENT_JOB_REMOVED, JobEvent
from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.job import Job as ApsJob
from apscheduler.jobstores.base import JobLookupError
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.background import BackgroundScheduler

from oraculum.jobs.locks import named_lock
from oraculum.jobs.reconcile import ReconcileThread
from oraculum.processes import lineage
from oraculum.scheduler import control
from oraculum.scheduler.execute import Outcome, preview, run_payload
from oraculum.scheduler.store import Store, scheduler_dir, utc_now
from oraculum.scheduler.triggers import build_trigger, first_fire_time
from oraculum.scheduler.validation import Payload, Timing
from oraculum.scheduler.wake import post_wake, wake_text

__all__ = ["OccurrenceExecutor", "Runner", "decide", "lateness", "main", "noop"]

log = logging.getLogger("oraculum.scheduler")
_SYNC_INTERVAL_S = 0.2
_IDLE_EXIT_S = 2.0


def _iso(when: datetime) -> str:
    return when.astimezone(UTC).isoformat()


def lateness(when: datetime, now: datetime, grace_s: int | None) -> float | None:
    """How late a fire time is when that is past the grace (so it is missed), else None."""
    late = (now - when).total_seconds()
    return round(late, 3) if grace_s is not None and late > grace_s else None


def decide(
    run_times: list[datetime], now: datetime, grace_s: int | None
) -> list[tuple[datetime, float | None]]:
    """Each due fire time with how late it was missed by, or None to run it. Several at once
    means the runner came late: only the last may still run, the others are missed (never
    backfilled); the last is missed too when it is past the grace."""
    decided: list[tuple[datetime, float | None]] = []
    for index, when in enumerate(run_times):
        late = lateness(when, now, grace_s)
        if index < len(run_times) - 1:
            late = round((now - when).total_seconds(), 3)
        decided.append((when, late))
    return decided


def noop(schedule_id: str) -> None:
    """APScheduler's reference for every job; :class:`OccurrenceExecutor` never calls it."""


class OccurrenceExecutor(ThreadPoolExecutor):
    """A thread pool that hands each job's fire times to the runner instead of ``job.func``."""

    def __init__(self, runner: Runner) -> None:
        super().__init__(max_workers=16)
        self.runner = runner

    def _do_submit_job(self, job: ApsJob, run_times: list[datetime]) -> None:
        def done(future: Future[None]) -> None:
            error = future.exception()
            if error is None:
                self._run_job_success(job.id, [])
            else:
                self._run_job_error(job.id, error, error.__traceback__)

        grace = job.misfire_grace_time
        self._pool.submit(self.runner.fire, job.id, run_times, grace).add_done_callback(done)


class Runner:
    def __init__(self, store: Store, *, grace_s: int, timeout_s: float) -> None:
        self.store = store
        self.grace_s = grace_s
        self.timeout_s = timeout_s
        self.stop = threading.Event()
        self._running = 0
        self._count_lock = threading.Lock()
        self.scheduler = BackgroundScheduler(
            jobstores={"default": SQLAlchemyJobStore(engine=store.engine)},
            executors={"default": OccurrenceExecutor(self)},
            job_defaults={"coalesce": False, "max_instances": 1, "misfire_grace_time": grace_s},
            timezone=UTC,
        )
        self.scheduler.add_listener(self._skipped, EVENT_JOB_MAX_INSTANCES)
        self.scheduler.add_listener(self._removed, EVENT_JOB_REMOVED)

    # -- one fire time ---------------------------------------------------------------------

    def fire(self, schedule_id: str, run_times: list[datetime], grace_s: int | None) -> None:
        for when, late in decide(run_times, utc_now(), grace_s):
            schedule = self.store.schedule(schedule_id)
            if schedule["state"] == "cancelled":
                return  # cancelled between the sync and this fire time: no occurrence
            if late is not None:
                self._record(schedule, when, "missed", {"late_s": late})
            else:
                self._run(schedule, when)

    def _record(
        self, schedule: dict[str, Any], when: datetime, outcome: str, detail: dict[str, Any]
    ) -> None:
        occurrence_id = self.store.claim_occurrence(schedule["id"], when, outcome)
        if occurrence_id is not None:
            occurrence = {"id": occurrence_id, "scheduled_for": _iso(when)}
            self._finish(schedule, occurrence, outcome, detail)

    def _run(self, schedule: dict[str, Any], when: datetime) -> None:
        occurrence_id = self.store.claim_occurrence(schedule["id"], when, "running")
        if occurrence_id is None:
            return  # this fire time was recorded before: never run twice
        with self._count_lock:
            self._running += 1
        try:
            outcome, detail = self._execute(schedule, occurrence_id)
        finally:
            with self._count_lock:
                self._running -= 1
        occurrence = {"id": occurrence_id, "scheduled_for": _iso(when)}
        self._finish(schedule, occurrence, outcome.kind, {**outcome.to_dict(), **detail})

    def _execute(self, schedule: dict[str, Any], occurrence_id: int) -> tuple[Outcome, dict]:
        raw = schedule.get("payload")
        if raw is None:
            return Outcome("heartbeat"), {}
        payload = Payload(raw["executable"], tuple(raw.get("args", ())), raw.get("cwd"))
        base = scheduler_dir() / "runs" / schedule["id"]
        out, err = base / f"{occurrence_id}.stdout", base / f"{occurrence_id}.stderr"
        outcome = run_payload(payload, stdout=out, stderr=err, timeout_s=self.timeout_s)
        detail = {
            "stdout": {**preview(out), "path": str(out)},
            "stderr": {**preview(err), "path": str(err)},
        }
        return outcome, detail

    def _finish(
        self,
        schedule: dict[str, Any],
        occurrence: dict[str, Any],
        outcome: str,
        detail: dict[str, Any],
    ) -> None:
        ended = {"id": occurrence["id"], "scheduled_for": occurrence["scheduled_for"]}
        ended |= {"outcome": outcome, "detail": detail}
        text = wake_text(schedule, ended, detail)
        self.store.finish_occurrence(ended["id"], outcome, detail, text)
        self._wake(schedule, {**ended, "wake": text})

    def _wake(self, schedule: dict[str, Any], occurrence: dict[str, Any]) -> None:
        try:
            notice_id = post_wake(schedule, occurrence)
        except Exception:  # the record stays unwoken; the next start retries it
            log.exception("posting the wake of occurrence %s failed", occurrence["id"])
            return
        self.store.mark_woken(occurrence["id"], notice_id)

    # -- APScheduler events ----------------------------------------------------------------

    def _skipped(self, event: JobEvent) -> None:
        # Its predecessor still runs. A fire time that is also past the grace was missed (the
        # runner was not there in time), which says more than "skipped".
        schedule = self.store.schedule(event.job_id)
        for when in getattr(event, "scheduled_run_times", []) or []:
            late = lateness(when, utc_now(), self.grace_s)
            if late is None:
                self._record(schedule, when, "skipped", {})
            else:
                self._record(schedule, when, "missed", {"late_s": late})

    def _removed(self, event: JobEvent) -> None:
        # A trigger with no fire time left: the schedule is finished (unless a cancel got there
        # first). It may still read "new": the job can fire and end before sync() marks it.
        self.store.set_state(event.job_id, "finished", only_from=("new", "active"))

    # -- the store's schedules → the scheduler ---------------------------------------------

    def recover(self) -> None:
        """Occurrences a dead runner left ``running`` become ``unknown``; lost wakes go out."""
        for occurrence in self.store.occurrences(outcome="running"):
            schedule = self.store.schedule(occurrence["schedule_id"])
            detail = {"runner_pid": occurrence["runner_pid"]}
            self._finish(schedule, occurrence, "unknown", detail)
        for occurrence in self.store.unwoken():
            self._wake(self.store.schedule(occurrence["schedule_id"]), occurrence)

    def sync(self) -> None:
        for schedule in self.store.schedules(states=("new",)):
            trigger = build_trigger(Timing.from_dict(schedule["timing"]))
            created = datetime.fromisoformat(schedule["created_at"])
            self.scheduler.add_job(
                noop,
                trigger,
                args=[schedule["id"]],
                id=schedule["id"],
                name=schedule["id"],
                replace_existing=True,
                next_run_time=first_fire_time(trigger, created),
            )
            if not self.store.set_state(schedule["id"], "active", only_from=("new",)):
                self._unschedule(schedule["id"])  # cancelled (or over) while being added
        for schedule in self.store.schedules(states=("cancelled",)):
            self._unschedule(schedule["id"])

    def _unschedule(self, schedule_id: str) -> None:
        try:
            self.scheduler.remove_job(schedule_id)
        except JobLookupError:
            pass

    def finish_orphans(self) -> None:
        """Active schedules without a job (their trigger ended while no runner ran)."""
        present = {job.id for job in self.scheduler.get_jobs()}
        for schedule in self.store.schedules(states=("active",)):
            if schedule["id"] not in present:
                self.store.set_state(schedule["id"], "finished", only_from=("active",))

    def idle(self) -> bool:
        with self._count_lock:
            busy = self._running > 0
        return not busy and not self.scheduler.get_jobs()

    def try_exit(self) -> bool:
        """Exit when idle, under the submit lock so no submission is stranded."""
        with named_lock(control.SUBMIT_LOCK):
            if self.store.schedules(states=("new",)) or not self.idle():
                return False
            control.clear_pending()
            self.stop.set()
            return True

    def run(self) -> None:
        self.recover()
        self.scheduler.start()
        self.finish_orphans()
        idle_since: float | None = None
        while not self.stop.is_set():
            self.sync()
            if self.idle():
                idle_since = idle_since or time.monotonic()
                if time.monotonic() - idle_since >= _IDLE_EXIT_S and self.try_exit():
                    break
            else:
                idle_since = None
            lineage.reap_orphans()  # descendants of payloads it inherited as a subreaper
            self.stop.wait(_SYNC_INTERVAL_S)
        self.scheduler.shutdown(wait=False)


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    with control.runner_lock() as held:
        if not held:
            return 0  # another runner owns the store
        runner = Runner(Store(), grace_s=control.grace_s(), timeout_s=control.timeout_s())
        control.record_runner_pid()
        signal.signal(signal.SIGTERM, lambda *_: runner.stop.set())
        lineage.become_subreaper()  # a payload's double-forked descendants stay in view
        log.info("scheduler runner %s started", os.getpid())
        reconciler = ReconcileThread()  # a long-lived oraculum process ends dead workers' jobs
        reconciler.start()
        runner.run()
        reconciler.stop()
        log.info("scheduler runner %s stopped", os.getpid())
    return 0
