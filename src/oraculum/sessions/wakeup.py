"""The wake-up message: what a session is told when one of its jobs ends, or when one of its
background tasks posts its notice (the same :class:`Wakeup`, ``kind`` naming the task's kind)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oraculum.core.surface import Surface, for_surface, tool_call
from oraculum.jobs.comparison import comparison_words
from oraculum.jobs.model import Job, iso
from oraculum.jobs.store import JobStore
from oraculum.tasks.notices import Notice

_NOT_AN_INSTRUCTION = (
    "This completion is not an instruction to run oracle_auth, oracle_submit or oracle_cancel "
    "(or `oraculum auth`, `submit`, `cancel`) again."
)
_NOT_AN_INSTRUCTION_MCP = (
    "This completion is not an instruction to call oracle_auth, oracle_submit or oracle_cancel "
    "again."
)


@dataclass(frozen=True)
class Wakeup:
    """One wake-up, as delivered to a sink. For a notice, ``job_id`` holds the notice's id
    (``n-…``, never a job id), ``kind`` the task's kind and ``data`` the notice's data."""

    job_id: str
    status: str
    session_id: str  # the session it is delivered into (the origin, or an adopter)
    origin_session_id: str | None
    project_id: str
    text: str
    response_path: str
    response_available: bool
    artifacts_path: str
    attempt: int
    kind: str = "oracle"
    title: str = ""
    source_id: str = ""
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def is_notice(self) -> bool:
        return self.kind != "oracle"

    def to_dict(self) -> dict[str, Any]:
        return {**self.to_data(), "text": self.text}

    def to_data(self) -> dict[str, Any]:
        """The facts without the message (an MCP result shows the message once, as text)."""
        if self.is_notice:
            return {
                "noticeId": self.job_id,
                "kind": self.kind,
                "sourceId": self.source_id,
                "title": self.title,
                "sessionId": self.session_id,
                "originSessionId": self.origin_session_id,
                "adopted": self.session_id != self.origin_session_id,
                "attempt": self.attempt,
                "data": self.data,
            }
        return {
            "jobId": self.job_id,
            "status": self.status,
            "sessionId": self.session_id,
            "originSessionId": self.origin_session_id,
            "adopted": self.session_id != self.origin_session_id,
            "responsePath": self.response_path,
            "responseAvailable": self.response_available,
            "artifactsPath": self.artifacts_path,
            "attempt": self.attempt,
        }


def _read_hint(job_id: str, surface: Surface) -> str:
    """How the reader opens the saved result, in its surface's terms."""
    if surface == "mcp":
        return f"Read it with {tool_call('oracle_read', {'jobId': job_id})}."
    return (
        f"Read the saved result with `oraculum read {job_id}` (agents: "
        f'oracle_read({{"jobId": "{job_id}"}})); `oraculum status {job_id}` shows metadata.'
    )


def wakeup_text(job: Job, store: JobStore, surface: Surface = "cli") -> str:
    """The seed's wake-up body: where to read, where the files are, what happened last."""
    paths = store.paths(job.id)
    response = Path(job.response_path)
    lines = [
        f"Oracle job {job.id} is {job.status.value}.",
        _read_hint(job.id, surface),
        f"Response file: {response}" if response.exists() else "Response file: unavailable yet",
        f"Artifacts: {paths.artifacts_dir}",
    ]
    compared = comparison_words(job.collection_gaps)
    if compared:
        lines.append(compared)
    last = job.last_fact
    if last is not None:
        lines.append(f"Last event: {iso(last.at)} [{last.source}] {last.message}")
    if job.error:
        # In the reader's terms: an MCP host is told the tool call, not the command.
        lines.append(f"Error: {for_surface(job.error, surface)}")
    else:
        lines.append("Open the saved result, then continue your task from the oracle's answer.")
    lines.append(_NOT_AN_INSTRUCTION_MCP if surface == "mcp" else _NOT_AN_INSTRUCTION)
    return "\n".join(lines)


def build_wakeup(
    job: Job, store: JobStore, *, session_id: str, attempt: int, surface: Surface = "cli"
) -> Wakeup:
    return Wakeup(
        job_id=job.id,
        status=job.status.value,
        session_id=session_id,
        origin_session_id=job.session_id,
        project_id=job.project_id,
        text=wakeup_text(job, store, surface),
        response_path=job.response_path,
        response_available=Path(job.response_path).exists(),
        artifacts_path=str(store.paths(job.id).artifacts_dir),
        attempt=attempt,
    )


_NOTICE_NOT_AN_INSTRUCTION = (
    "This notice reports a finished background task; it is not an instruction to start it again."
)


def notice_text(notice: Notice) -> str:
    """What a session reads when a background task's notice arrives."""
    lines = [f"Background {notice.kind} task {notice.source_id}: {notice.title}"]
    if notice.text:
        lines.append(notice.text)
    lines.append(_NOTICE_NOT_AN_INSTRUCTION)
    return "\n".join(lines)


def build_notice_wakeup(notice: Notice, *, session_id: str, attempt: int) -> Wakeup:
    ok = notice.data.get("ok")
    return Wakeup(
        job_id=notice.id,
        status="failed" if ok is False else "complete",
        session_id=session_id,
        origin_session_id=notice.session_id,
        project_id=notice.project_id,
        text=notice_text(notice),
        response_path="",
        response_available=False,
        artifacts_path="",
        attempt=attempt,
        kind=notice.kind,
        title=notice.title,
        source_id=notice.source_id,
        data=notice.data,
    )
