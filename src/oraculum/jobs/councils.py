"""The council record (`council.json`): one question asked of several members, each an
ordinary job, and the single wake-up that tells the session when they have all ended.

A council lives in ``<jobs dir>/councils/<council id>/`` (0700; `council.json` and
`council.md` 0600, written atomically). Every read-modify-write holds the council's flock, so
the one process that sees the last member end (a poller's scan, a `status`, `read` or `wait`
of the council) submits the synthesis or posts the wake-up exactly once. An open council is
marked in the ``councils`` index so a scan looks only at the councils still to be told.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_serializer
from pydantic.alias_generators import to_camel

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.fsio import atomic_write_bytes, ensure_private_dir, os_errors
from oraculum.core.paths import jobs_dir
from oraculum.jobs import indexes
from oraculum.jobs.ids import COUNCIL_PREFIX, validate_council_id
from oraculum.jobs.locks import named_lock
from oraculum.jobs.model import iso

__all__ = ["OPEN_INDEX", "Council", "CouncilMember", "CouncilStore"]

OPEN_INDEX = "councils"  # councils whose wake-up is still to be posted
_LOCK_TIMEOUT_S = 30.0


class _Record(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class CouncilMember(_Record):
    """One member as asked (``provider:preset``) and the job that answers for it. A member
    refused at admission (a full queue) has no job and says why in ``error``."""

    name: str  # `chatgpt:pro_extended`, as normalised
    provider: str
    preset: str | None = None
    job_id: str | None = None
    error_code: str | None = None
    error: str | None = None


class Council(_Record):
    id: str
    created_at: datetime
    project_id: str
    project_root: str
    session_id: str | None
    prompt: str
    members: list[CouncilMember]
    deadline_at: datetime | None = None
    synthesize: str | None = None  # the synthesis member's name, when asked for
    synthesis: CouncilMember | None = None  # once submitted
    # The explicit config layer the members were asked with (the synthesis is asked with it).
    config_overrides: dict[str, Any] | None = None
    cancel_requested_at: datetime | None = None
    ended_at: datetime | None = None  # the wake-up was posted (or nobody was to be told)
    notice_id: str | None = None
    ended_by_deadline: bool = False

    @field_serializer("created_at", "deadline_at", "cancel_requested_at", "ended_at")
    def _timestamps(self, value: datetime | None) -> str | None:
        return None if value is None else iso(value)

    def job_ids(self) -> list[str]:
        """Every job of the council, the synthesis last."""
        jobs = [m.job_id for m in self.members if m.job_id]
        if self.synthesis is not None and self.synthesis.job_id:
            jobs.append(self.synthesis.job_id)
        return jobs

    def to_json_bytes(self) -> bytes:
        return self.model_dump_json(indent=2, by_alias=True).encode() + b"\n"


class CouncilStore:
    def __init__(self, root: Path | None = None) -> None:
        self.root = (root if root is not None else jobs_dir()) / "councils"

    def dir(self, council_id: str) -> Path:
        return self.root / validate_council_id(council_id)

    def record_path(self, council_id: str) -> Path:
        return self.dir(council_id) / "council.json"

    def markdown_path(self, council_id: str) -> Path:
        return self.dir(council_id) / "council.md"

    def create(self, council: Council) -> Council:
        ensure_private_dir(self.dir(council.id))
        self._write(council)
        indexes.mark(OPEN_INDEX, _marker(council.id))
        return council

    def load(self, council_id: str) -> Council:
        path = self.record_path(council_id)
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            return Council.model_validate(raw)
        except FileNotFoundError:
            raise OracleError(
                ErrorCode.COUNCIL_NOT_FOUND,
                f"Council not found: {council_id}",
                rejected_value=council_id,
                suggested_next_step="Use the council id `oraculum council` printed (cl-…).",
            ) from None
        except (ValueError, ValidationError) as exc:
            raise OracleError(
                ErrorCode.JOB_CORRUPT, f"Council record is damaged: {path} ({exc})"
            ) from None

    def update(self, council_id: str, change: Callable[[Council], Council | None]) -> Council:
        """Read-modify-write under the council's lock; ``change`` may act (submit a job, post
        the wake-up) before returning the new record, and nobody else acts meanwhile."""
        with named_lock("council", validate_council_id(council_id), timeout=_LOCK_TIMEOUT_S):
            current = self.load(council_id)
            changed = change(current)
            if changed is None or changed == current:
                return current
            self._write(changed)
            if changed.ended_at is not None:
                indexes.unmark(OPEN_INDEX, _marker(council_id))
            return changed

    def open_ids(self) -> list[str]:
        return [COUNCIL_PREFIX + marker for marker in indexes.members(OPEN_INDEX)]

    def write_markdown(self, council_id: str, text: str) -> Path:
        path = self.markdown_path(council_id)
        with os_errors(path):
            atomic_write_bytes(path, text.encode("utf-8"))
        return path

    def _write(self, council: Council) -> None:
        path = self.record_path(council.id)
        with os_errors(path):
            atomic_write_bytes(path, council.to_json_bytes())


def _marker(council_id: str) -> str:
    """An index marker is named by a job-shaped id: the council id without its prefix."""
    return validate_council_id(council_id).removeprefix(COUNCIL_PREFIX)


def member_facts(member: CouncilMember) -> dict[str, Any]:
    return member.model_dump(mode="json", by_alias=True, exclude_none=True)
