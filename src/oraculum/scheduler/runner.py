"""The runner: one detached process per user that fires the schedules in the store.

It is a loop. Each pass reads the live schedules, works out each one's fire times since its
latest occurrence (:mod:`oraculum.scheduler.triggers`), handles those that are due, and then
sleeps on the :class:`~oraculum.scheduler.doorbell.Doorbell` until the earliest fire time to
come; ``submit``, ``cancel`` and the end of a payload ring it to start a pass at once.

For each due fire time it decides: late past the grace → ``missed`` (never run late); several
due at once → all but the last ``missed`` (never backfilled); the previous occurrence of the
same schedule still running → ``skipped`` (no overlap); otherwise it claims the fire time
(an ``O_EXCL`` file: never run twice), runs the payload in a thread, records the outcome and
posts the wake. An occurrence found ``running`` at start-up belonged to a runner that died: it
becomes ``unknown`` and is not retried.

The runner is a singleton by an ``flock`` (the kernel drops it when the runner dies). It exits
when no schedule is live and nothing runs, letting the lock go under the submit lock, so a
submit either sees it alive (and is seen by it) or starts a new one.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from oraculum.core.errors import OracleError
from oraculum.jobs.locks import named_lock
from oraculum.jobs.reconcile import ReconcileThread
from oraculum.processes import lineage
from oraculum.scheduler import control
from oraculum.scheduler.doorbell import Doorbell
from oraculum.scheduler.execute import Outcome, preview, run_payload
from oraculum.scheduler.store import ACTIVE_STATES, Store, scheduler_dir, utc_now
from oraculum.scheduler.triggers import fire_iter
from oraculum.scheduler.validation import Payload, Timing
from oraculum.scheduler.wake import post_wake, wake_text

__all__ = ["Runner", "decide", "lateness", "main"]

log = logging.getLogger("oraculum.scheduler")
# The longest sleep: a wall clock that jumps (a suspended machine, a clock set by hand) is
# noticed within it, and descendants the runner inherited are reaped at least this often.
_MAX_SLEEP_S = 30.0
_BATCH = 1_000  # fire times worked out per schedule and pass


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


class Runner:
    def __init__(self, store: Store, doorbell: Doorbell, *, grace_s: int, timeout_s: float) -> None:
        self.store = store
        self.doorbell = doorbell
        self.grace_s = grace_s
        self.timeout_s = timeout_s
        self.stop = threading.Event()
        self._running: dict[str, threading.Thread] = {}  # schedule id → its payload's thread
        self._running_lock = threading.Lock()
        self._cursors: dict[str, datetime] = {}  # schedule id → its latest handled fire time

    def _busy(self, schedule_id: str) -> bool:
        with self._running_lock:
            return schedule_id in self._running

    # -- one pass --------------------------------------------------------------------------

    def tick(self, now: datetime) -> datetime | None:
        """Handle every due fire time; the earliest one still to come (None: none)."""
        earliest: datetime | None = None
        for schedule in self.store.schedules(states=ACTIVE_STATES):
            if self.stop.is_set():
                break
            try:
                upcoming = self._advance(schedule, now)
            except Exception:  # a full disk, a damaged record: the others still fire
                log.exception("schedule %s could not be handled; retrying", schedule["id"])
                upcoming = now + timedelta(seconds=_MAX_SLEEP_S)
            if upcoming is not None and (earliest is None or upcoming < earliest):
                earliest = upcoming
        return earliest

    def _cursor(self, schedule: dict[str, Any]) -> datetime:
        """Fire times after this one are the schedule's to handle: after its latest occurrence,
        or from its creation (a microsecond before, so one due at that very moment counts).
        Read from the store once; then kept here, as only this runner adds occurrences."""
        schedule_id = schedule["id"]
        if schedule_id not in self._cursors:
            created = datetime.fromisoformat(schedule["created_at"]) - timedelta(microseconds=1)
            self._cursors[schedule_id] = self.store.last_fire_time(schedule_id) or created
        return self._cursors[schedule_id]

    def _due(
        self, timing: Timing, schedule: dict[str, Any], now: datetime
    ) -> tuple[list[datetime], datetime | None]:
        """The fire times due by ``now`` (at most a batch) and the one after them (``now``
        itself when the batch is full: more may be due, another pass at once)."""
        due: list[datetime] = []
        for when in fire_iter(timing, after=self._cursor(schedule)):
            if when > now:
                return due, when
            due.append(when)
            if len(due) == _BATCH:
                return due, now
        return due, None

    def _advance(self, schedule: dict[str, Any], now: datetime) -> datetime | None:
        """Handle one schedule's due fire times; its next one (None: none to come)."""
        schedule_id = schedule["id"]
        new = schedule["state"] == "new"
        if new and not self.store.set_state(schedule_id, "active", only_from=("new",)):
            return None  # cancelled meanwhile
        due, upcoming = self._due(Timing.from_dict(schedule["timing"]), schedule, now)
        if due:
            self._fire(schedule_id, due, now)
            self._cursors[schedule_id] = due[-1]
        if upcoming is not None:
            return upcoming
        if not self._busy(schedule_id):  # the last one has ended: nothing more to come
            self.store.set_state(schedule_id, "finished", only_from=ACTIVE_STATES)
            self._cursors.pop(schedule_id, None)
        return None

    def _fire(self, schedule_id: str, due: list[datetime], now: datetime) -> None:
        schedule = self.store.schedule(schedule_id)
        if schedule["state"] == "cancelled":
            return  # cancelled since the pass began: no occurrence
        if self._busy(schedule_id):
            # Its predecessor still runs. A fire time that is also past the grace was missed
            # (the runner was not there in time), which says more than "skipped".
            for when in due:
                late = lateness(when, now, self.grace_s)
                if late is None:
                    self._record(schedule, when, "skipped", {})
                else:
                    self._record(schedule, when, "missed", {"late_s": late})
            return
        for when, late in decide(due, now, self.grace_s):
            if late is not None:
                self._record(schedule, when, "missed", {"late_s": late})
            else:
                self._start(schedule, when)

    # -- one occurrence --------------------------------------------------------------------

    def _record(
        self, schedule: dict[str, Any], when: datetime, outcome: str, detail: dict[str, Any]
    ) -> None:
        occurrence_id = self.store.claim_occurrence(schedule["id"], when, outcome)
        if occurrence_id is not None:
            occurrence = {"id": occurrence_id, "scheduled_for": when.isoformat()}
            self._finish(schedule, occurrence, outcome, detail)

    def _start(self, schedule: dict[str, Any], when: datetime) -> None:
        occurrence_id = self.store.claim_occurrence(schedule["id"], when, "running")
        if occurrence_id is None:
            return  # this fire time was recorded before: never run twice
        occurrence = {"id": occurrence_id, "scheduled_for": when.isoformat()}
        thread = threading.Thread(
            target=self._run, args=(schedule, occurrence), name=f"occurrence-{schedule['id']}"
        )
        with self._running_lock:
            self._running[schedule["id"]] = thread
        thread.start()

    def _run(self, schedule: dict[str, Any], occurrence: dict[str, Any]) -> None:
        try:
            outcome, detail = self._execute(schedule, occurrence["id"])
            self._finish(schedule, occurrence, outcome.kind, {**outcome.to_dict(), **detail})
        except Exception:  # it stays "running" and becomes "unknown" at the next start
            log.exception("occurrence %s of %s failed", occurrence["id"], schedule["id"])
        finally:
            with self._running_lock:
                self._running.pop(schedule["id"], None)
            self.doorbell.ring()  # its schedule may have ended, or the runner may go idle

    def _execute(self, schedule: dict[str, Any], occurrence_id: str) -> tuple[Outcome, dict]:
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
        self.store.finish_occurrence(schedule["id"], ended["id"], outcome, detail, text)
        self._wake(schedule, {**ended, "wake": text})

    def _wake(self, schedule: dict[str, Any], occurrence: dict[str, Any]) -> None:
        try:
            notice_id = post_wake(schedule, occurrence)
        except Exception:  # the record stays unwoken; the next start retries it
            log.exception("posting the wake of occurrence %s failed", occurrence["id"])
            return
        self.store.mark_woken(schedule["id"], occurrence["id"], notice_id)

    # -- the loop --------------------------------------------------------------------------

    def recover(self) -> None:
        """Occurrences a dead runner left ``running`` become ``unknown``; lost wakes go out."""
        for occurrence in self.store.occurrences(outcome="running"):
            schedule = self.store.schedule(occurrence["schedule_id"])
            detail = {"runner_pid": occurrence["runner_pid"]}
            self._finish(schedule, occurrence, "unknown", detail)
        for occurrence in self.store.unwoken():
            self._wake(self.store.schedule(occurrence["schedule_id"]), occurrence)

    def idle(self) -> bool:
        with self._running_lock:
            busy = bool(self._running)
        return not busy and not self.store.schedules(states=ACTIVE_STATES)

    def try_exit(self, release: Callable[[], None]) -> bool:
        """Exit when idle: under the submit lock, clear the marker and let the runner lock go,
        so a submission after this starts a new runner and none is stranded."""
        with named_lock(control.SUBMIT_LOCK):
            if not self.idle():
                return False
            control.clear_pending()
            release()
            self.stop.set()
            return True

    def run(self, release: Callable[[], None]) -> None:
        self.recover()
        while not self.stop.is_set():
            earliest = self.tick(utc_now())
            if earliest is None and self.idle() and self.try_exit(release):
                break
            wait_s = _MAX_SLEEP_S
            if earliest is not None:
                wait_s = min(wait_s, (earliest - utc_now()).total_seconds())
            if not self.stop.is_set():
                self.doorbell.wait(wait_s)
            lineage.reap_orphans()  # descendants of payloads it inherited as a subreaper
        for thread in list(self._running.values()):
            thread.join()  # a stopped runner lets the payloads under way finish


def _serve(release: Callable[[], None]) -> None:
    doorbell = Doorbell()
    runner = Runner(Store(), doorbell, grace_s=control.grace_s(), timeout_s=control.timeout_s())
    control.record_runner_pid()

    def stop(*_: object) -> None:
        runner.stop.set()
        doorbell.ring()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGCHLD, lambda *_: doorbell.ring())  # an inherited orphan to reap
    lineage.become_subreaper()  # a payload's double-forked descendants stay in view
    log.info("scheduler runner %s started", os.getpid())
    reconciler = ReconcileThread()  # a long-lived oraculum process ends dead workers' jobs
    reconciler.start()
    try:
        runner.run(release)
    finally:
        reconciler.stop()
        doorbell.close()
    log.info("scheduler runner %s stopped", os.getpid())


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    with control.runner_lock() as release:
        if release is None:
            return 0  # another runner owns the store
        try:
            _serve(release)
        except OracleError as exc:  # the store refused (a removed setting): say why, once
            log.error("scheduler runner %s cannot start: %s", os.getpid(), exc.message)
            return 1
    return 0
