"""The scheduler's records: schedules and their occurrences, beside APScheduler's own table.

One SQLAlchemy database holds three tables: ``apscheduler_jobs`` (APScheduler's job store:
the triggers and next run times), ``oraculum_schedules`` (what was submitted, by whom, and its
state) and ``oraculum_occurrences`` (one row per fire time: ran, missed, skipped or unknown,
with previews and the wake). The default is SQLite in the state dir; ``$ORACULUM_SCHEDULER_STORE``
names another SQLAlchemy URL (PostgreSQL, say; see docs/scheduler.md).

An occurrence row is unique per (schedule, fire time): inserting it is the claim to run it, so
a fire time is never run twice, whatever restarts in between.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oraculum.core.errors import OracleError
from oraculum.core.fsio import ensure_private_dir, write_private_file
from oraculum.core.paths import state_dir
from oraculum.jobs.ids import JOB_ID_PATTERN

if TYPE_CHECKING:
    import sqlalchemy as sa
    from sqlalchemy.engine import Connection, Engine

__all__ = [
    "ACTIVE_STATES",
    "STORE_ENV",
    "Store",
    "check_schedule_id",
    "scheduler_dir",
    "store_url",
    "utc_now",
]

STORE_ENV = "ORACULUM_SCHEDULER_STORE"
ACTIVE_STATES = ("new", "active")  # states with future occurrences


def utc_now() -> datetime:
    return datetime.now(UTC)


def scheduler_dir() -> Path:
    return state_dir() / "scheduler"


def store_url() -> str:
    return os.environ.get(STORE_ENV) or f"sqlite:///{scheduler_dir() / 'scheduler.db'}"


def check_schedule_id(value: Any) -> str:
    """Schedule ids are job-style ids (13 Crockford base32 characters), checked before use."""
    if not isinstance(value, str) or not JOB_ID_PATTERN.fullmatch(value):
        raise OracleError(
            "schedule_not_found",
            "A schedule id is 13 characters of 0-9 and a-z (see `oraculum schedule list`).",
            rejected_value=value if isinstance(value, str) and len(value) < 64 else None,
        )
    return value


@dataclass(frozen=True)
class _Tables:
    schedules: sa.Table
    occurrences: sa.Table


@cache
def _tables() -> tuple[sa.MetaData, _Tables]:
    import sqlalchemy as sa

    meta = sa.MetaData()
    schedules = sa.Table(
        "oraculum_schedules",
        meta,
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("project_id", sa.String(128), nullable=False),
        sa.Column("session_id", sa.String(128), nullable=False),
        sa.Column("prompt", sa.Text, nullable=False),
        sa.Column("payload", sa.Text),  # JSON {executable, args, cwd} or NULL (heartbeat)
        sa.Column("timing", sa.Text, nullable=False),  # JSON of validation.Timing
        sa.Column("state", sa.String(16), nullable=False),  # new active finished cancelled
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("ended_at", sa.String(40)),
    )
    occurrences = sa.Table(
        "oraculum_occurrences",
        meta,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("schedule_id", sa.String(32), nullable=False, index=True),
        sa.Column("scheduled_for", sa.String(40), nullable=False),
        # running exit signal timeout start_error heartbeat unknown missed skipped
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("detail", sa.Text),  # JSON: exit code, signal, previews, file paths
        sa.Column("runner_pid", sa.Integer),
        sa.Column("started_at", sa.String(40)),
        sa.Column("ended_at", sa.String(40)),
        sa.Column("wake", sa.Text),  # the wake text, readable after the session is gone
        sa.Column("notice_id", sa.String(128)),
        sa.Column("woken_at", sa.String(40)),
        sa.UniqueConstraint("schedule_id", "scheduled_for", name="uq_occurrence_time"),
    )
    return meta, _Tables(schedules, occurrences)


def _private_sqlite_file(url: str) -> None:
    # SQLite would create the file with the umask's mode; make it 0600 first (its journal
    # files copy the database's mode).
    prefix = "sqlite:///"
    if not url.startswith(prefix) or url == prefix + ":memory:":
        return
    path = Path(url[len(prefix) :])
    ensure_private_dir(path.parent)
    with suppress(FileExistsError):
        write_private_file(path, b"")


class Store:
    """Our two tables over one engine (the runner shares the engine with APScheduler)."""

    def __init__(self, url: str | None = None) -> None:
        import sqlalchemy as sa

        self.url = url or store_url()
        _private_sqlite_file(self.url)
        connect_args = {"timeout": 30} if self.url.startswith("sqlite") else {}
        self.engine: Engine = sa.create_engine(self.url, connect_args=connect_args)
        meta, self.t = _tables()
        meta.create_all(self.engine)

    @contextmanager
    def _tx(self) -> Iterator[Connection]:
        with self.engine.begin() as conn:
            yield conn

    # -- schedules -------------------------------------------------------------------------

    def add_schedule(self, row: dict[str, Any]) -> None:
        with self._tx() as conn:
            conn.execute(self.t.schedules.insert().values(**row))

    def schedule(self, schedule_id: str) -> dict[str, Any]:
        check_schedule_id(schedule_id)
        with self._tx() as conn:
            found = conn.execute(
                self.t.schedules.select().where(self.t.schedules.c.id == schedule_id)
            ).first()
        if found is None:
            raise OracleError(
                "schedule_not_found",
                f"No schedule {schedule_id}.",
                rejected_value=schedule_id,
                suggested_next_step="`oraculum schedule list` shows the schedules.",
            )
        return _decoded(found._asdict())

    def schedules(self, *, states: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
        query = self.t.schedules.select().order_by(self.t.schedules.c.id)
        if states is not None:
            query = query.where(self.t.schedules.c.state.in_(states))
        with self._tx() as conn:
            return [_decoded(r._asdict()) for r in conn.execute(query)]

    def set_state(self, schedule_id: str, state: str, *, only_from: tuple[str, ...]) -> bool:
        """Move a schedule to ``state`` if it is in one of ``only_from``; True if it moved."""
        s = self.t.schedules
        ended = utc_now().isoformat() if state in ("finished", "cancelled") else None
        with self._tx() as conn:
            done = conn.execute(
                s.update()
                .where(s.c.id == schedule_id, s.c.state.in_(only_from))
                .values(state=state, ended_at=ended)
            )
        return bool(done.rowcount)

    # -- occurrences -----------------------------------------------------------------------

    def claim_occurrence(self, schedule_id: str, when: datetime, outcome: str) -> int | None:
        """Insert the occurrence of ``when``; None if that fire time was already recorded."""
        import sqlalchemy as sa

        row = {
            "schedule_id": schedule_id,
            "scheduled_for": when.astimezone(UTC).isoformat(),
            "outcome": outcome,
            "runner_pid": os.getpid(),
            "started_at": utc_now().isoformat(),
        }
        try:
            with self._tx() as conn:
                result = conn.execute(self.t.occurrences.insert().values(**row))
        except sa.exc.IntegrityError:
            return None
        key = result.inserted_primary_key
        return int(key[0]) if key else None

    def finish_occurrence(
        self, occurrence_id: int, outcome: str, detail: dict[str, Any], wake: str
    ) -> None:
        o = self.t.occurrences
        with self._tx() as conn:
            conn.execute(
                o.update()
                .where(o.c.id == occurrence_id)
                .values(
                    outcome=outcome,
                    detail=json.dumps(detail),
                    ended_at=utc_now().isoformat(),
                    wake=wake,
                )
            )

    def mark_woken(self, occurrence_id: int, notice_id: str | None) -> None:
        o = self.t.occurrences
        with self._tx() as conn:
            conn.execute(
                o.update()
                .where(o.c.id == occurrence_id)
                .values(notice_id=notice_id, woken_at=utc_now().isoformat())
            )

    def occurrences(
        self, schedule_id: str | None = None, *, outcome: str | None = None
    ) -> list[dict[str, Any]]:
        o = self.t.occurrences
        query = o.select().order_by(o.c.id)
        if schedule_id is not None:
            query = query.where(o.c.schedule_id == schedule_id)
        if outcome is not None:
            query = query.where(o.c.outcome == outcome)
        with self._tx() as conn:
            return [_decoded(r._asdict()) for r in conn.execute(query)]

    def unwoken(self) -> list[dict[str, Any]]:
        """Ended occurrences whose wake was not posted yet (the runner died in between)."""
        o = self.t.occurrences
        query = o.select().where(o.c.woken_at.is_(None), o.c.wake.is_not(None)).order_by(o.c.id)
        with self._tx() as conn:
            return [_decoded(r._asdict()) for r in conn.execute(query)]


def _decoded(row: dict[str, Any]) -> dict[str, Any]:
    for key in ("payload", "timing", "detail"):
        if row.get(key) is not None:
            row[key] = json.loads(row[key])
    return row
