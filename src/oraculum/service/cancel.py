"""`cancel`: stop a queued or running job, named by id — never guessed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.surface import Surface, for_surface
from oraculum.jobs.cancel import cancel_job
from oraculum.jobs.ids import given_job_ref
from oraculum.service.caller import Caller
from oraculum.service.status import find_job
from oraculum.service.summary import job_summary

USAGE = (
    "Usage: oraculum cancel <job-id> (oracle_cancel needs jobId). "
    "Use `oraculum status` to find the job id you want to cancel."
)


@dataclass(frozen=True)
class CancelResult:
    """How a cancel ended: `cancelled`, `cancel_failed` or `finished_first`."""

    job: dict[str, Any]  # the job's summary after the cancel (see service.summary)
    outcome: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"job": self.job, "outcome": self.outcome, "message": self.message}

    def text(self, surface: Surface) -> str:
        return for_surface(self.message, surface) or self.message


def cancel(job_ref: str | None, *, caller: Caller | None = None) -> CancelResult:
    """Cancel the job ``job_ref`` names, whichever project it belongs to (an id names one job
    from anywhere)."""
    job_ref = given_job_ref(job_ref)
    if job_ref is None:
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            USAGE,
            suggested_next_step="Run `oraculum status` (oracle_status) to list job ids.",
        )
    store = (caller or Caller()).store
    job = find_job(store, job_ref)
    if job.is_terminal:
        raise OracleError(
            ErrorCode.JOB_NOT_CANCELLABLE,
            f"Oracle job {job.id} is not cancellable ({job.status.value}).",
            rejected_value=job.id,
            suggested_next_step=f"Read it with `oraculum read {job.id}`.",
        )
    outcome = cancel_job(job.id, store=store)
    return CancelResult(job_summary(outcome.job), outcome.outcome, outcome.message)
