"""The scheduler's records: schedules and their occurrences, as JSON files in the state dir.

``<state>/scheduler/schedules/<id>.json`` holds what was submitted, by whom, and its state
(``new``, ``active``, ``finished``, ``cancelled``); a state change is a read-modify-write under
the schedule's lock, written atomically. ``<state>/scheduler/occurrences/<id>/<stamp>.json``
holds one fire time (``stamp`` is its UTC time, so names sort by time): ran, missed, skipped
or unknown, with previews and the wake. Directories are 0700, files 0600.

An occurrence's file is created with ``O_EXCL`` and made durable before its payload starts:
creating it is the claim to run that fire time, so a fire time is never run twice, whatever
restarts in between. A claim file found empty or torn is a claim whose runner died at once:
it reads as ``running`` (and so becomes ``unknown`` at the next start).
"""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.fsio import (
    atomic_write_json,
    ensure_private_dir,
    fsync_dir,
    fsync_file,
    json_bytes,
    write_private_file,
)
from oraculum.core.paths import state_dir
from oraculum.jobs.ids import JOB_ID_PATTERN
from oraculum.jobs.locks import named_lock

__all__ = [
    "ACTIVE_STATES",
    "REMOVED_STORE_ENV",
    "Store",
    "check_schedule_id",
    "occurrence_stamp",
    "scheduler_dir",
    "utc_now",
]

ACTIVE_STATES = ("new", "active")  # states with future occurrences
# The SQLAlchemy store's URL (PostgreSQL, say) of earlier versions: refused, never ignored, so
# nobody believes two machines share schedules when each keeps its own.
REMOVED_STORE_ENV = "ORACULUM_SCHEDULER_STORE"
_STAMP_FORMAT = "%Y%m%dT%H%M%S%fZ"
_STAMP = re.compile(r"^\d{8}T\d{12}Z$")
_SCHEDULE_LOCK = "scheduler-schedule"


def utc_now() -> datetime:
    return datetime.now(UTC)


def scheduler_dir() -> Path:
    return state_dir() / "scheduler"


def check_schedule_id(value: Any) -> str:
    """Schedule ids are job-style ids (13 Crockford base32 characters), checked before use."""
    if not isinstance(value, str) or not JOB_ID_PATTERN.fullmatch(value):
        raise OracleError(
            ErrorCode.SCHEDULE_NOT_FOUND,
            "A schedule id is 13 characters of 0-9 and a-z (see `oraculum schedule list`).",
            rejected_value=value if isinstance(value, str) and len(value) < 64 else None,
        )
    return value


def occurrence_stamp(when: datetime) -> str:
    """A fire time's id: its UTC time to the microsecond, e.g. ``20261201T090000000000Z``."""
    return when.astimezone(UTC).strftime(_STAMP_FORMAT)


def _stamp_time(stamp: str) -> datetime:
    return datetime.strptime(stamp, _STAMP_FORMAT).replace(tzinfo=UTC)


def _occurrence_row(schedule_id: str, when: datetime, outcome: str) -> dict[str, Any]:
    return {
        "id": occurrence_stamp(when),
        "schedule_id": schedule_id,
        "scheduled_for": when.astimezone(UTC).isoformat(),
        "outcome": outcome,
        "detail": None,
        "runner_pid": None,
        "started_at": None,
        "ended_at": None,
        "wake": None,
        "notice_id": None,
        "woken_at": None,
    }


def _refuse_removed_store() -> None:
    if os.environ.get(REMOVED_STORE_ENV):
        raise OracleError(
            ErrorCode.ORACLE_CONFIG_INVALID,
            f"${REMOVED_STORE_ENV} is no longer supported: the scheduler keeps its schedules "
            f"as files in {scheduler_dir()} on this machine (there is no SQL or PostgreSQL "
            "store any more).",
            rejected_value=REMOVED_STORE_ENV,
            suggested_next_step=f"Unset {REMOVED_STORE_ENV} (docs/scheduler.md).",
            details={"variable": REMOVED_STORE_ENV},
        )


def _read(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path} holds no record")
    return data


class Store:
    """The records under ``root`` (default ``<state>/scheduler``)."""

    def __init__(self, root: Path | None = None) -> None:
        _refuse_removed_store()
        self.root = root or scheduler_dir()

    def _schedule_path(self, schedule_id: str) -> Path:
        return self.root / "schedules" / f"{check_schedule_id(schedule_id)}.json"

    def _occurrence_dir(self, schedule_id: str) -> Path:
        return self.root / "occurrences" / check_schedule_id(schedule_id)

    # -- schedules -------------------------------------------------------------------------

    def add_schedule(self, row: dict[str, Any]) -> None:
        path = self._schedule_path(row["id"])
        ensure_private_dir(path.parent)
        atomic_write_json(path, {**row, "ended_at": row.get("ended_at")})

    def schedule(self, schedule_id: str) -> dict[str, Any]:
        path = self._schedule_path(schedule_id)
        try:
            return _read(path)
        except FileNotFoundError:
            raise OracleError(
                ErrorCode.SCHEDULE_NOT_FOUND,
                f"No schedule {schedule_id}.",
                rejected_value=schedule_id,
                suggested_next_step="`oraculum schedule list` shows the schedules.",
            ) from None

    def schedule_ids(self) -> list[str]:
        """Every schedule's id, oldest first (ids sort by creation time)."""
        try:
            names = os.listdir(self.root / "schedules")
        except FileNotFoundError:
            return []
        found = (name.removesuffix(".json") for name in names if name.endswith(".json"))
        return sorted(i for i in found if JOB_ID_PATTERN.fullmatch(i))

    def schedules(self, *, states: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
        rows = []
        for schedule_id in self.schedule_ids():
            try:
                row = _read(self._schedule_path(schedule_id))
            except (OSError, ValueError):
                continue  # removed meanwhile, or not ours
            if states is None or row.get("state") in states:
                rows.append(row)
        return rows

    def set_state(self, schedule_id: str, state: str, *, only_from: tuple[str, ...]) -> bool:
        """Move a schedule to ``state`` if it is in one of ``only_from``; True if it moved."""
        with named_lock(_SCHEDULE_LOCK, check_schedule_id(schedule_id)):
            row = self.schedule(schedule_id)
            if row["state"] not in only_from:
                return False
            ended = utc_now().isoformat() if state in ("finished", "cancelled") else None
            changed = {**row, "state": state, "ended_at": ended}
            atomic_write_json(self._schedule_path(schedule_id), changed)
        return True

    # -- occurrences -----------------------------------------------------------------------

    def claim_occurrence(self, schedule_id: str, when: datetime, outcome: str) -> str | None:
        """Create the occurrence of ``when`` (durably); None if that fire time has one."""
        stamp = occurrence_stamp(when)
        directory = ensure_private_dir(self._occurrence_dir(schedule_id))
        path = directory / f"{stamp}.json"
        row = _occurrence_row(schedule_id, when, outcome)
        row |= {"runner_pid": os.getpid(), "started_at": utc_now().isoformat()}
        try:
            write_private_file(path, json_bytes(row))
        except FileExistsError:
            return None
        fsync_file(path)
        fsync_dir(directory)
        return stamp

    def _occurrence_path(self, schedule_id: str, occurrence_id: str) -> Path:
        if not _STAMP.fullmatch(occurrence_id):
            raise ValueError(f"bad occurrence id {occurrence_id!r}")
        return self._occurrence_dir(schedule_id) / f"{occurrence_id}.json"

    def _update_occurrence(self, schedule_id: str, occurrence_id: str, **change: Any) -> None:
        path = self._occurrence_path(schedule_id, occurrence_id)
        atomic_write_json(path, {**self._occurrence(path), **change})

    def _occurrence(self, path: Path) -> dict[str, Any]:
        try:
            return _read(path)
        except ValueError:  # a claim torn by its runner's death: it was running
            stamp = path.name.removesuffix(".json")
            return _occurrence_row(path.parent.name, _stamp_time(stamp), "running")

    def finish_occurrence(
        self,
        schedule_id: str,
        occurrence_id: str,
        outcome: str,
        detail: dict[str, Any],
        wake: str,
    ) -> None:
        self._update_occurrence(
            schedule_id,
            occurrence_id,
            outcome=outcome,
            detail=detail,
            ended_at=utc_now().isoformat(),
            wake=wake,
        )

    def mark_woken(self, schedule_id: str, occurrence_id: str, notice_id: str | None) -> None:
        self._update_occurrence(
            schedule_id, occurrence_id, notice_id=notice_id, woken_at=utc_now().isoformat()
        )

    def occurrence_ids(self, schedule_id: str) -> list[str]:
        """The schedule's occurrences in fire-time order."""
        try:
            names = os.listdir(self._occurrence_dir(schedule_id))
        except FileNotFoundError:
            return []
        found = (name.removesuffix(".json") for name in names if name.endswith(".json"))
        return sorted(s for s in found if _STAMP.fullmatch(s))

    def last_fire_time(self, schedule_id: str) -> datetime | None:
        """The latest fire time the schedule has an occurrence for (from the names alone)."""
        stamps = self.occurrence_ids(schedule_id)
        return _stamp_time(stamps[-1]) if stamps else None

    def occurrences(
        self, schedule_id: str | None = None, *, outcome: str | None = None
    ) -> list[dict[str, Any]]:
        """Occurrences (of one schedule, or of all), in schedule then fire-time order."""
        schedule_ids = [schedule_id] if schedule_id is not None else self.schedule_ids()
        rows = []
        for sid in schedule_ids:
            for stamp in self.occurrence_ids(sid):
                try:
                    row = self._occurrence(self._occurrence_path(sid, stamp))
                except FileNotFoundError:
                    continue
                if outcome is None or row["outcome"] == outcome:
                    rows.append(row)
        return rows

    def unwoken(self) -> list[dict[str, Any]]:
        """Ended occurrences whose wake was not posted yet (the runner died in between)."""
        return [r for r in self.occurrences() if r["woken_at"] is None and r["wake"] is not None]
