"""`status`: one job, or the recent jobs of a project."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from oraculum.core.errors import OracleError
from oraculum.core.project import find_project_root, project_id
from oraculum.jobs.model import Job, utc_now
from oraculum.jobs.store import JobStore
from oraculum.service.summary import job_summary

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
    store: JobStore | None = None,
) -> dict[str, Any]:
    """One job's summary, or the newest jobs of the project (or of every project)."""
    store = store or JobStore()
    project = None if all_projects else find_project_root(cwd)
    now = utc_now()
    if job_ref is not None:
        return {"job": job_summary(job_in_project(store, job_ref, project), now=now)}
    wanted = None if project is None else project_id(project)
    jobs: list[dict[str, Any]] = []
    problems: list[dict[str, Any]] = []
    for item in store.iter_jobs(newest_first=True):
        if len(jobs) >= limit:
            break
        if isinstance(item, OracleError):
            problems.append(item.to_dict())
        elif wanted is None or item.project_id == wanted:
            jobs.append(job_summary(item, now=now))
    result: dict[str, Any] = {"jobs": jobs, "project": str(project) if project else None}
    if problems:
        result["problems"] = problems
    return result
