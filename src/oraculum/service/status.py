"""`status`: one job, or the recent jobs of a project."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from oraculum.core.errors import OracleError
from oraculum.core.project import find_project_root, project_id
from oraculum.core.session import resolve_session_id
from oraculum.jobs import indexes
from oraculum.jobs.ids import given_job_ref
from oraculum.jobs.model import Job, utc_now
from oraculum.jobs.reconcile import reconcile_before_reading
from oraculum.jobs.store import JobStore
from oraculum.service.summary import job_summary
from oraculum.sessions.claims import settle

RECENT_LIMIT = 10


def job_in_project(store: JobStore, job_ref: str, project: Path | None) -> Job:
    """Load a job named by id or prefix; when a project is given, the job must belong to it."""
    job = store.load(store.resolve(job_ref))
    if project is not None and job.project_id != project_id(project):
        raise OracleError(
            "job_not_found",
            f"Oracle job {job.id} was not found in this project ({project}).",
            rejected_value=job_ref,
            suggested_next_step="Run `oraculum status --all-projects` to see every job.",
        )
    return job


def status(
    job_ref: str | None = None,
    *,
    cwd: Path | None = None,
    all_projects: bool = False,
    limit: int = RECENT_LIMIT,
    session: str | None = None,
    store: JobStore | None = None,
) -> dict[str, Any]:
    """One job's summary, or the newest jobs of the project (or of every project).

    Looking at one finished job settles its wake-up once a reminder was sent; before the first
    reminder it is only recorded as observed, so the reminder still goes out.
    """
    job_ref = given_job_ref(job_ref)
    store = store or JobStore()
    project = None if all_projects else find_project_root(cwd)
    reconcile_before_reading(store)
    now = utc_now()
    if job_ref is not None:
        job = job_in_project(store, job_ref, project)
        if job.is_terminal:
            session_id = resolve_session_id(session, action="read status", required=False)
            job = (
                settle(store, job.id, source="oracle_status", session_id=session_id, now=now) or job
            )
        return {"job": job_summary(job, now=now)}
    jobs: list[dict[str, Any]] = []
    problems: list[dict[str, Any]] = []
    ids = (
        store.list_ids()
        if project is None
        else indexes.members(indexes.project(project_id(project)))
    )
    for job_id in reversed(ids):
        if len(jobs) >= limit:
            break
        try:
            jobs.append(job_summary(store.load(job_id), now=now))
        except OracleError as error:
            if error.code != "job_not_found":
                problems.append(error.to_dict())
    result: dict[str, Any] = {
        "jobs": jobs,
        "recentJobIds": [job["id"] for job in jobs],
        "project": str(project) if project else None,
    }
    if problems:
        result["problems"] = problems
    return result
