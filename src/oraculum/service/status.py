"""`status`: one job, or the recent jobs of a project."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.project import project_id
from oraculum.core.surface import Surface, for_surface
from oraculum.jobs import indexes
from oraculum.jobs.comparison import comparison_words
from oraculum.jobs.ids import given_job_ref
from oraculum.jobs.model import Job, utc_now
from oraculum.jobs.reconcile import reconcile_before_reading
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.result import yes_no
from oraculum.service.summary import job_summary
from oraculum.sessions.claims import settle

__all__ = [
    "BRIEF_JOB_KEYS",
    "JobList",
    "JobStatus",
    "StatusResult",
    "find_job",
    "job_in_project",
    "selection_words",
    "status",
]

RECENT_LIMIT = 10
# A status list shows each job this briefly to an agent (the full summary is one status away).
BRIEF_JOB_KEYS = ("id", "status", "phase", "provider", "createdAt", "sessionId", "errorCode")
_ENDED = ("complete", "failed", "cancelled")


def selection_words(job: dict[str, Any]) -> str:
    """`chatgpt, Pro Extended`: a job summary's provider and its selection's label."""
    selection = job.get("selection") or {}
    label = selection.get("label")
    return f"{job['provider']}, {label}" if label and job["provider"] != "test" else job["provider"]


@dataclass(frozen=True)
class JobStatus:
    """One job's status: its summary (the documented job shape, see service.summary)."""

    job: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"job": self.job}

    def text(self, surface: Surface) -> str:
        job = self.job
        lines = [
            f"Oracle job {job['id']}: {job['status']} ({job['phase']}), {selection_words(job)}, "
            f"created {job['createdAt']}."
        ]
        queue = job.get("queue", {})
        if queue.get("position"):
            lines.append(f"Queue position {queue['position']} of {queue['depth']}.")
        if job.get("error"):
            lines.append(f"Error ({job.get('errorCode', 'failed')}): {job['error']}")
        if job.get("lastEvent"):
            event = job["lastEvent"]
            lines.append(f"Last event: {event['at']} [{event['source']}] {event['message']}")
        lines.append(
            f"Prompt sent: {job['promptSendState']}; cleanup pending: "
            f"{yes_no(job.get('cleanupPending'))}."
        )
        if job["status"] in _ENDED:
            lines += self._ended_lines(surface)
        return "\n".join(lines)

    def _ended_lines(self, surface: Surface) -> list[str]:
        job = self.job
        saved = job["responsePath"] if job.get("responseAvailable") else "not saved"
        lines = [f"Response: {saved}."]
        compared = comparison_words(job.get("collectionGaps"))
        if compared:
            lines.append(compared)
        wakeup = job.get("wakeup")
        if wakeup:
            settled = yes_no(wakeup["settled"])
            lines.append(f"Wake-up: {wakeup['attempts']} sent, settled: {settled}.")
        read = f"Read it with `oraculum read {job['id']}`."
        lines.append(for_surface(read, surface) or read)
        return lines


@dataclass(frozen=True)
class JobList:
    """The newest jobs of a project (``project`` None: of every project), newest first."""

    jobs: list[dict[str, Any]]  # job summaries
    project: Path | None
    problems: list[dict[str, Any]] = field(default_factory=list)  # unreadable jobs' errors

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "jobs": self.jobs,
            "recentJobIds": [job["id"] for job in self.jobs],
            "project": str(self.project) if self.project else None,
        }
        if self.problems:
            out["problems"] = self.problems
        return out

    def brief(self) -> list[dict[str, Any]]:
        """Each job by its :data:`BRIEF_JOB_KEYS` only."""
        return [{k: job[k] for k in BRIEF_JOB_KEYS if k in job} for job in self.jobs]

    def text(self, surface: Surface) -> str:
        if not self.jobs:
            return "No oracle jobs in this project yet."
        lines = ["Recent oracle jobs (newest first):"]
        lines += [
            f"- {j['id']}: {j['status']} ({j['phase']}), {j['provider']}"
            + ("" if self.project else f", project {j['projectRoot']}")
            for j in self.jobs
        ]
        return "\n".join(lines)


StatusResult = JobStatus | JobList


def find_job(store: JobStore, job_ref: str) -> Job:
    """Load a job named by id, prefix or short form, whichever project it belongs to: ids are
    unique across projects, so `status`, `read`, `wait`, `cancel` and `followup` work from any
    directory (the job's summary says its project: ``projectRoot``)."""
    return store.load(store.resolve(job_ref))


def job_in_project(store: JobStore, job_ref: str, project: Path | None) -> Job:
    """:func:`find_job`, where the job must belong to ``project`` when one is given (what
    removes a job, and an MCP server's resources, stay within their project)."""
    job = find_job(store, job_ref)
    if project is not None and job.project_id != project_id(project):
        raise OracleError(
            ErrorCode.JOB_NOT_FOUND,
            f"Oracle job {job.id} was not found in this project ({project}).",
            rejected_value=job_ref,
            suggested_next_step="Run `oraculum status --all-projects` to see every job.",
        )
    return job


def status(
    job_ref: str | None = None,
    *,
    caller: Caller | None = None,
    all_projects: bool = False,
    limit: int = RECENT_LIMIT,
) -> StatusResult:
    """One job's summary, or the newest jobs of the project (or of every project).

    Looking at one finished job settles its wake-up once a reminder was sent; before the first
    reminder it is only recorded as observed, so the reminder still goes out.
    """
    caller = caller or Caller()
    job_ref = given_job_ref(job_ref)
    store = caller.store
    project = None if all_projects else caller.root
    reconcile_before_reading(store)
    now = utc_now()
    if job_ref is not None:
        job = find_job(store, job_ref)
        if job.is_terminal:
            session_id = caller.session_id("read status", required=False)
            job = (
                settle(store, job.id, source="oracle_status", session_id=session_id, now=now) or job
            )
        return JobStatus(job_summary(job, now=now))
    jobs: list[dict[str, Any]] = []
    problems: list[dict[str, Any]] = []
    ids = (
        store.list_ids() if project is None else indexes.members(indexes.project(caller.project_id))
    )
    for job_id in reversed(ids):
        if len(jobs) >= limit:
            break
        try:
            jobs.append(job_summary(store.load(job_id), now=now))
        except OracleError as error:
            if error.code != ErrorCode.JOB_NOT_FOUND:
                problems.append(error.to_dict())
    return JobList(jobs, project, problems)
