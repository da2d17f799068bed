"""`open`: the conversation a job ran in, as its URL (to open in a browser by hand)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.providers import provider_spec
from oraculum.core.surface import Surface
from oraculum.jobs.ids import given_job_ref
from oraculum.service.caller import Caller
from oraculum.service.status import find_job

__all__ = ["ConversationLink", "conversation_link"]


@dataclass(frozen=True)
class ConversationLink:
    """A job's conversation: its id and URL, and the project it belongs to."""

    job_id: str
    url: str
    project_root: str

    def to_json(self) -> dict[str, Any]:
        return {"jobId": self.job_id, "url": self.url, "projectRoot": self.project_root}

    def text(self, surface: Surface) -> str:
        return self.url


def conversation_link(job_ref: str | None, *, caller: Caller | None = None) -> ConversationLink:
    """The URL of the conversation job ``job_ref`` ran in (any project); refused with
    ``conversation_url_missing`` while it has none (not sent yet, or a dry run)."""
    ref = given_job_ref(job_ref)
    if ref is None:
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            "Usage: oraculum open <job-id> [--browser].",
            suggested_next_step="Run `oraculum status` to list job ids.",
        )
    job = find_job((caller or Caller()).store, ref)
    if not job.chat_url:
        label = provider_spec(job.provider).label
        raise OracleError(
            ErrorCode.CONVERSATION_URL_MISSING,
            f"Oracle job {job.id} has no {label} conversation yet ({job.status.value}, "
            f"{job.phase.words}).",
            rejected_value=job.id,
            suggested_next_step=f"Run `oraculum status {job.id}`; a job has a conversation "
            "once its prompt was sent.",
        )
    return ConversationLink(job.id, job.chat_url, job.project_root)
