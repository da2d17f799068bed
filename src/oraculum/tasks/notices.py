"""Durable notices: one finished background task's message to the session that owns it.

A notice is a small JSON file, ``<state>/notices/<project id>/<notice id>.json`` (directories
0700, files 0600, written atomically), so any process — an MCP server's task thread, the
scheduler's runner, a supervisor — can post one, and it survives the poster. It carries the
same wake-up bookkeeping as a job record (claim, claimant, attempts, last request), and the
session pollers deliver it through the same claim protocol (:mod:`oraculum.sessions.claims`).
Once delivered (committed) it is settled, which removes the file: a notice is told exactly once.

Every read-modify-write holds the project's ``notices`` flock; readers never lock.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.fsio import atomic_write_json, ensure_private_dir, os_errors
from oraculum.core.paths import state_dir
from oraculum.core.session import validate_session_id
from oraculum.jobs.ids import ALPHABET, new_job_id
from oraculum.jobs.locks import named_lock
from oraculum.jobs.model import utc_now

__all__ = [
    "NOTICE_ID_PATTERN",
    "Notice",
    "NoticeStore",
    "Owner",
    "post_notice",
]

NOTICE_ID_PATTERN = re.compile(rf"^n-[{ALPHABET}]{{13}}$")
_PROJECT_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_KIND_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
_MAX_TITLE = 300
_MAX_TEXT = 64 * 1024
_LOCK_TIMEOUT_S = 10.0


def _invalid(what: str, value: object) -> OracleError:
    shown = value if isinstance(value, str) and len(value) <= 200 else None
    return OracleError(ErrorCode.INVALID_ARGUMENT, f"Invalid notice {what}.", rejected_value=shown)


@dataclass(frozen=True)
class Owner:
    """The session a background task (and so its notice) belongs to."""

    project_id: str
    session_id: str

    def __post_init__(self) -> None:
        if not isinstance(self.project_id, str) or not _PROJECT_ID_PATTERN.fullmatch(
            self.project_id
        ):
            raise _invalid("project id", self.project_id)
        validate_session_id(self.session_id)


@dataclass(frozen=True)
class Notice:
    """One notice with its delivery bookkeeping (the same fields a job's wake-up has)."""

    id: str
    owner: Owner
    kind: str
    source_id: str
    title: str
    text: str
    data: dict[str, Any]
    created_at: datetime
    claimed_at: datetime | None = None
    claimed_by: str | None = None
    attempt_count: int = 0
    last_requested_at: datetime | None = None
    target_session: str | None = None
    settled_at: datetime | None = field(default=None)

    @property
    def project_id(self) -> str:
        return self.owner.project_id

    @property
    def session_id(self) -> str:
        return self.owner.session_id

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "projectId": self.project_id,
            "sessionId": self.session_id,
            "kind": self.kind,
            "sourceId": self.source_id,
            "title": self.title,
            "text": self.text,
            "data": self.data,
            "createdAt": self.created_at.isoformat(),
            "claimedAt": _iso_or_none(self.claimed_at),
            "claimedBy": self.claimed_by,
            "attemptCount": self.attempt_count,
            "lastRequestedAt": _iso_or_none(self.last_requested_at),
            "targetSession": self.target_session,
            "settledAt": _iso_or_none(self.settled_at),
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Notice:
        return cls(
            id=_notice_id(raw["id"]),
            owner=Owner(raw["projectId"], raw["sessionId"]),
            kind=str(raw["kind"]),
            source_id=str(raw["sourceId"]),
            title=str(raw["title"]),
            text=str(raw["text"]),
            data=dict(raw.get("data") or {}),
            created_at=datetime.fromisoformat(raw["createdAt"]),
            claimed_at=_parse_or_none(raw.get("claimedAt")),
            claimed_by=raw.get("claimedBy"),
            attempt_count=int(raw.get("attemptCount") or 0),
            last_requested_at=_parse_or_none(raw.get("lastRequestedAt")),
            target_session=raw.get("targetSession"),
            settled_at=_parse_or_none(raw.get("settledAt")),
        )


def _iso_or_none(moment: datetime | None) -> str | None:
    # Full precision (not jobs' millisecond ``iso``): a claim is recognised by its exact time.
    return moment.isoformat() if moment is not None else None


def _parse_or_none(text: object) -> datetime | None:
    return datetime.fromisoformat(text) if isinstance(text, str) else None


def _notice_id(value: object) -> str:
    if not isinstance(value, str) or not NOTICE_ID_PATTERN.fullmatch(value):
        raise _invalid("id", value)
    return value


class NoticeStore:
    """The notices on disk (``root`` defaults to the state dir)."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root

    def project_dir(self, project_id: str) -> Path:
        Owner(project_id, "x")  # validates the project id before it becomes a path
        return (self.root or state_dir()) / "notices" / project_id

    def path(self, project_id: str, notice_id: str) -> Path:
        return self.project_dir(project_id) / f"{_notice_id(notice_id)}.json"

    def save_new(self, notice: Notice) -> Notice:
        directory = ensure_private_dir(self.project_dir(notice.project_id))
        atomic_write_json(directory / f"{notice.id}.json", notice.to_json())
        return notice

    def load(self, project_id: str, notice_id: str) -> Notice | None:
        """The notice, or None when it is gone (settled) or unreadable."""
        try:
            raw = json.loads(self.path(project_id, notice_id).read_text(encoding="utf-8"))
            return Notice.from_json(raw)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError, OracleError):
            return None  # a torn or foreign file is never delivered

    def ids(self, project_id: str) -> list[str]:
        """The project's unsettled notices, oldest first (ids sort by creation time)."""
        try:
            names = os.listdir(self.project_dir(project_id))
        except FileNotFoundError:
            return []
        found = (name[: -len(".json")] for name in names if name.endswith(".json"))
        return sorted(n for n in found if NOTICE_ID_PATTERN.fullmatch(n))

    def notices(self, project_id: str) -> Iterator[Notice]:
        for notice_id in self.ids(project_id):
            notice = self.load(project_id, notice_id)
            if notice is not None:
                yield notice

    def update(
        self, project_id: str, notice_id: str, change: Callable[[Notice], Notice | None]
    ) -> Notice | None:
        """Read-modify-write under the project's notice lock. ``change`` returns the new
        notice or None to leave it; a notice that comes back settled is removed. None when the
        notice is gone."""
        path = self.path(project_id, notice_id)
        with named_lock("notices", project_id, timeout=_LOCK_TIMEOUT_S):
            current = self.load(project_id, notice_id)
            if current is None:
                return None
            changed = change(current)
            if changed is None or changed == current:
                return current
            if changed.settled_at is not None:
                with os_errors(path, action="remove"), contextlib.suppress(FileNotFoundError):
                    path.unlink()
            else:
                atomic_write_json(path, changed.to_json())
            return changed


def post_notice(
    owner: Owner,
    *,
    kind: str,
    source_id: str,
    title: str,
    text: str,
    data: dict[str, Any],
    store: NoticeStore | None = None,
) -> Notice:
    """Write a durable notice for ``owner``'s session; the session's pollers deliver it once."""
    if not _KIND_PATTERN.fullmatch(kind) or kind == "oracle":  # "oracle" names job wake-ups
        raise _invalid("kind", kind)
    json.dumps(data)  # refuse what cannot be stored before anything is written
    notice = Notice(
        id=f"n-{new_job_id()}",
        owner=owner,
        kind=kind,
        source_id=str(source_id)[:200],
        title=title[:_MAX_TITLE],
        text=text[:_MAX_TEXT],
        data=data,
        created_at=utc_now(),
    )
    return (store or NoticeStore()).save_new(notice)
