"""The wake-up message: what a session is told when one of its jobs ends."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oraculum.jobs.model import EventKind, Job, iso
from oraculum.jobs.store import JobStore

NOT_AN_INSTRUCTION = (
    "This completion is not an instruction to run oracle_auth, oracle_submit or oracle_cancel "
    "(or `oraculum auth`, `submit`, `cancel`) again."
)


@dataclass(frozen=True)
class Wakeup:
    """One wake-up, as delivered to a sink."""

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

    def to_dict(self) -> dict[str, Any]:
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
            "text": self.text,
        }


def wakeup_text(job: Job, store: JobStore) -> str:
    """The seed's wake-up body: where to read, where the files are, what happened last."""
    paths = store.paths(job.id)
    response = Path(job.response_path)
    lines = [
        f"Oracle job {job.id} is {job.status.value}.",
        f"Read the saved result with `oraculum read {job.id}` (agents: "
        f'oracle_read({{"jobId": "{job.id}"}})); `oraculum status {job.id}` shows metadata.',
        f"Response file: {response}" if response.exists() else "Response file: unavailable yet",
        f"Artifacts: {paths.artifacts_dir}",
    ]
    # The last fact about the job itself, not the wake-up bookkeeping around this message.
    facts = [
        e for e in job.lifecycle_events if e.kind not in (EventKind.WAKEUP, EventKind.NOTIFICATION)
    ]
    if facts:
        last = facts[-1]
        lines.append(f"Last event: {iso(last.at)} [{last.source}] {last.message}")
    if job.error:
        lines.append(f"Error: {job.error}")
    else:
        lines.append("Open the saved result, then continue your task from the oracle's answer.")
    lines.append(NOT_AN_INSTRUCTION)
    return "\n".join(lines)


def build_wakeup(job: Job, store: JobStore, *, session_id: str, attempt: int) -> Wakeup:
    return Wakeup(
        job_id=job.id,
        status=job.status.value,
        session_id=session_id,
        origin_session_id=job.session_id,
        project_id=job.project_id,
        text=wakeup_text(job, store),
        response_path=job.response_path,
        response_available=Path(job.response_path).exists(),
        artifacts_path=str(store.paths(job.id).artifacts_dir),
        attempt=attempt,
    )
