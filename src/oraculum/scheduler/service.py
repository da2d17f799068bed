"""The scheduler's operations (submit, list, show, cancel) and the frozen results the CLI and
MCP render (``to_json()``, ``text(surface)``; see :mod:`oraculum.service.result`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from oraculum.core.columns import columns
from oraculum.core.surface import Surface
from oraculum.jobs.ids import new_job_id
from oraculum.jobs.locks import named_lock
from oraculum.scheduler import control
from oraculum.scheduler.doorbell import ring
from oraculum.scheduler.store import ACTIVE_STATES, Store, utc_now
from oraculum.scheduler.triggers import fire_times
from oraculum.scheduler.validation import Timing, validate_submission
from oraculum.scheduler.wake import describe_outcome

__all__ = [
    "ScheduleCancelled",
    "ScheduleList",
    "ScheduleShown",
    "ScheduleSubmitted",
    "cancel",
    "list_schedules",
    "outcome_counts",
    "show",
    "submit",
]

_NEXT_RUNS = 3

# How many occurrences ended how, in a word each (an occurrence's own sentence, with its exit
# code or signal, is the scheduler's `describe_outcome`).
OUTCOME_WORDS = {
    "running": "running",
    "exit": "ran",
    "signal": "killed",
    "timeout": "timed out",
    "start_error": "could not start",
    "heartbeat": "fired",
    "unknown": "ended unknown",
    "missed": "missed",
    "skipped": "skipped",
}


def outcome_counts(occurrences: dict[str, int]) -> str:
    """``{"exit": 2, "missed": 1}`` as "2 ran, 1 missed" ("-" when there were none)."""
    words = [
        f"{count} {OUTCOME_WORDS.get(outcome, outcome.replace('_', ' '))}"
        for outcome, count in sorted(occurrences.items())
    ]
    return ", ".join(words) or "-"


@dataclass(frozen=True)
class ScheduleSubmitted:
    """A stored schedule (its summary) and whether this call started the runner."""

    schedule: dict[str, Any]
    runner_started: bool

    def to_json(self) -> dict[str, Any]:
        return {"schedule": self.schedule, "runnerStarted": self.runner_started}

    def text(self, surface: Surface) -> str:
        when = ", ".join(self.schedule["nextRuns"]) or "now"
        return f"Scheduled {self.schedule['id']} (next: {when})."


@dataclass(frozen=True)
class ScheduleList:
    """Schedule summaries, oldest first."""

    schedules: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {"schedules": self.schedules}

    def text(self, surface: Surface) -> str:
        if not self.schedules:
            return "No schedules."
        rows = [["id", "state", "next", "occurrences", "payload"]]
        for s in self.schedules:
            payload = s["payload"]["executable"] if s["payload"] else "(reminder)"
            seen = outcome_counts(s["occurrences"])
            rows.append([s["id"], s["state"], (s["nextRuns"] or ["-"])[0], seen, payload])
        return "\n".join(columns(rows))


@dataclass(frozen=True)
class ScheduleShown:
    """One schedule with every occurrence and the wake it sent."""

    schedule: dict[str, Any]
    occurrences: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {"schedule": self.schedule, "occurrenceList": self.occurrences}

    def text(self, surface: Surface) -> str:
        schedule = self.schedule
        lines = [
            f"{schedule['id']}  {schedule['state']}",
            f"  timing: {schedule['timing']}",
            f"  next: {', '.join(schedule['nextRuns']) or '-'}",
        ]
        for occurrence in self.occurrences:
            outcome = describe_outcome(occurrence["outcome"], occurrence["detail"])
            lines += ["", f"[{occurrence['id']}] {occurrence['scheduledFor']} {outcome}"]
            if occurrence["wake"]:
                lines.append(occurrence["wake"])
        return "\n".join(lines)


@dataclass(frozen=True)
class ScheduleCancelled:
    """A cancel: the schedule as it is now, and whether this call stopped it."""

    schedule: dict[str, Any]
    cancelled: bool

    def to_json(self) -> dict[str, Any]:
        return {"schedule": self.schedule, "cancelled": self.cancelled}

    def text(self, surface: Surface) -> str:
        word = "Cancelled" if self.cancelled else "Not cancelled (already ended):"
        return f"{word} {self.schedule['id']} ({self.schedule['state']})."


def submit(
    prompt: Any,
    payload: Any,
    timing: Any,
    *,
    project_id: str,
    session_id: str,
    base: Path,
    store: Store | None = None,
) -> ScheduleSubmitted:
    """Validate everything, store the schedule, make sure a runner lives to pick it up."""
    now = utc_now()
    checked = validate_submission(prompt, payload, timing, base=base, now=now)
    timing_row = checked.timing
    if timing_row.kind == "now":
        timing_row = Timing(kind="now", start=now)
    schedule_id = new_job_id()
    row = {
        "id": schedule_id,
        "project_id": project_id,
        "session_id": session_id,
        "prompt": checked.prompt,
        "payload": asdict(checked.payload) if checked.payload else None,
        "timing": timing_row.to_dict(),
        "state": "new",
        "created_at": now.isoformat(),
    }
    store = store or Store()
    with named_lock(control.SUBMIT_LOCK):
        store.add_schedule(row)
        control.mark_pending()
        started = control.ensure_runner()
        if not started:
            ring()  # the live runner reads the new schedule now, not at its next fire time
    return ScheduleSubmitted(_summary(store.schedule(schedule_id), []), started)


def _next_runs(schedule: dict[str, Any]) -> list[str]:
    if schedule["state"] not in ACTIVE_STATES:
        return []
    timing = Timing.from_dict(schedule["timing"])
    return [t.isoformat() for t in fire_times(timing, after=utc_now(), limit=_NEXT_RUNS)]


def _summary(schedule: dict[str, Any], occurrences: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": schedule["id"],
        "state": schedule["state"],
        "sessionId": schedule["session_id"],
        "projectId": schedule["project_id"],
        "reentryPrompt": schedule["prompt"],
        "payload": schedule["payload"],
        "timing": schedule["timing"],
        "createdAt": schedule["created_at"],
        "endedAt": schedule["ended_at"],
        "nextRuns": _next_runs(schedule),
        "occurrences": dict(Counter(o["outcome"] for o in occurrences)),
    }


def _occurrence(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": row["id"],
        "scheduledFor": row["scheduled_for"],
        "outcome": row["outcome"],
        "detail": row["detail"] or {},
        "startedAt": row["started_at"],
        "endedAt": row["ended_at"],
        "wake": row["wake"],
        "noticeId": row["notice_id"],
        "wokenAt": row["woken_at"],
    }


def list_schedules(*, project_id: str | None, store: Store | None = None) -> ScheduleList:
    """Every schedule (of ``project_id`` when given), oldest first."""
    store = store or Store()
    rows = [s for s in store.schedules() if project_id is None or s["project_id"] == project_id]
    return ScheduleList([_summary(s, store.occurrences(s["id"])) for s in rows])


def show(schedule_id: str, *, store: Store | None = None) -> ScheduleShown:
    """One schedule with every occurrence and its wake (readable after its session is gone)."""
    store = store or Store()
    schedule = store.schedule(schedule_id)
    occurrences = store.occurrences(schedule_id)
    return ScheduleShown(_summary(schedule, occurrences), [_occurrence(o) for o in occurrences])


def cancel(schedule_id: str, *, store: Store | None = None) -> ScheduleCancelled:
    """Stop future occurrences (one already running finishes and wakes as usual)."""
    store = store or Store()
    store.schedule(schedule_id)  # schedule_not_found first
    cancelled = store.set_state(schedule_id, "cancelled", only_from=ACTIVE_STATES)
    if cancelled:
        ring()  # the runner forgets its fire times (and exits if nothing else is live)
    schedule = store.schedule(schedule_id)
    return ScheduleCancelled(_summary(schedule, store.occurrences(schedule_id)), cancelled)
