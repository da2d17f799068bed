"""The scheduler's operations (submit, list, show, cancel) as plain dicts for the CLI and MCP."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

from oraculum.jobs.ids import new_job_id
from oraculum.jobs.locks import named_lock
from oraculum.scheduler import control
from oraculum.scheduler.doorbell import ring
from oraculum.scheduler.store import ACTIVE_STATES, Store, utc_now
from oraculum.scheduler.triggers import fire_times
from oraculum.scheduler.validation import Timing, validate_submission

__all__ = ["cancel", "list_schedules", "show", "submit"]

_NEXT_RUNS = 3


def submit(
    prompt: Any,
    payload: Any,
    timing: Any,
    *,
    project_id: str,
    session_id: str,
    base: Path,
    store: Store | None = None,
) -> dict[str, Any]:
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
    return {"schedule": _summary(store.schedule(schedule_id), []), "runnerStarted": started}


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


def list_schedules(*, project_id: str | None, store: Store | None = None) -> dict[str, Any]:
    """Every schedule (of ``project_id`` when given), oldest first."""
    store = store or Store()
    rows = [s for s in store.schedules() if project_id is None or s["project_id"] == project_id]
    return {"schedules": [_summary(s, store.occurrences(s["id"])) for s in rows]}


def show(schedule_id: str, *, store: Store | None = None) -> dict[str, Any]:
    """One schedule with every occurrence and its wake (readable after its session is gone)."""
    store = store or Store()
    schedule = store.schedule(schedule_id)
    occurrences = store.occurrences(schedule_id)
    return {
        "schedule": _summary(schedule, occurrences),
        "occurrenceList": [_occurrence(o) for o in occurrences],
    }


def cancel(schedule_id: str, *, store: Store | None = None) -> dict[str, Any]:
    """Stop future occurrences (one already running finishes and wakes as usual)."""
    store = store or Store()
    store.schedule(schedule_id)  # schedule_not_found first
    cancelled = store.set_state(schedule_id, "cancelled", only_from=ACTIVE_STATES)
    if cancelled:
        ring()  # the runner forgets its fire times (and exits if nothing else is live)
    schedule = store.schedule(schedule_id)
    return {"schedule": _summary(schedule, store.occurrences(schedule_id)), "cancelled": cancelled}
