"""`clean`: remove finished jobs' directories — one by id, all of this project's finished jobs,
or every job past its retention (any project)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.project import project_id
from oraculum.core.surface import Surface, for_surface
from oraculum.jobs.ids import given_job_ref
from oraculum.jobs.model import Job
from oraculum.jobs.reconcile import reconcile
from oraculum.jobs.retention import open_job_blocked, prune_terminal, remove_job
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.status import job_in_project

__all__ = ["ALL", "CleanResult", "clean"]

ALL = "all"


@dataclass(frozen=True)
class CleanResult:
    """Which finished jobs' directories went, which stayed (id → why) and which were still open."""

    removed: list[str]
    kept: dict[str, str]
    message: str
    skipped_open: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "removed": self.removed,
            "kept": self.kept,
            "skippedOpen": self.skipped_open,
            "message": self.message,
        }

    def text(self, surface: Surface) -> str:
        return for_surface(self.message, surface) or self.message


def _message(removed: int, total: int, kept: dict[str, str]) -> str:
    noun = "directory" if total == 1 else "directories"
    if not kept:
        return f"Removed {removed} oracle job {noun}."
    lines = [
        f"Removed {removed} of {total} oracle job {noun}; retained {len(kept)} due to cleanup "
        "blockers or warnings.",
        "Cleanup blockers/warnings:",
    ]
    lines += [f"- {job_id}: {reason}" for job_id, reason in kept.items()]
    return "\n".join(lines)


def clean(
    target: str | None = None,
    *,
    expired: bool = False,
    force: bool = False,
    caller: Caller | None = None,
) -> CleanResult:
    """``target`` is a job id (or prefix) or ``all``; ``expired`` prunes by retention instead;
    ``force`` removes finished jobs inside their wake-up grace too. Asked to remove jobs and
    removing none of them is ``clean_blocked``, with each one's reason."""
    caller = caller or Caller()
    store = caller.store
    store.sweep_staging()  # what killed submits left behind is finished business too
    if expired:
        report = prune_terminal(store)
        total = len(report.removed) + len(report.kept)
        message = _message(len(report.removed), total, report.kept)
        return CleanResult(report.removed, report.kept, message)
    if target is None:
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            "Usage: oraculum clean <job-id|all> (or --expired).",
            suggested_next_step="Run `oraculum status` to list job ids.",
        )
    one = None if target.strip() == ALL else given_job_ref(target)
    root = caller.root
    try:
        reconcile(store)
    except OracleError:
        pass  # removal re-checks every blocker under the job lock anyway
    chosen = _chosen(store, one, root)
    skipped = [job.id for job in chosen if not job.is_terminal]
    finished = [job for job in chosen if job.is_terminal]
    removed, kept = _remove(store, finished, force=force, strict=one is not None)
    message = _message(len(removed), len(finished), kept)
    if skipped:
        message += f"\nSkipped {len(skipped)} job(s) still open: {', '.join(skipped)}."
    if not removed:
        raise OracleError(
            ErrorCode.CLEAN_BLOCKED,
            message,
            retryable=True,
            details={"kept": kept, "skippedOpen": skipped},
            suggested_next_step="Retry later; `oraculum clean all --force` removes finished "
            "jobs inside their wake-up grace, and `oraculum cancel ID` ends an open one.",
        )
    return CleanResult(removed, kept, message, skipped)


def _chosen(store: JobStore, one: str | None, root: Path) -> list[Job]:
    """The jobs a clean is asked about: ``one`` (which must have ended), else the project's."""
    if one is not None:
        job = job_in_project(store, one, root)
        if not job.is_terminal:
            raise open_job_blocked(job)
        return [job]
    wanted = project_id(root)
    chosen = [j for j in store.iter_jobs() if isinstance(j, Job) and j.project_id == wanted]
    if not chosen:
        raise OracleError(ErrorCode.JOB_NOT_FOUND, "No matching oracle jobs found.")
    return chosen


def _remove(
    store: JobStore, finished: list[Job], *, force: bool, strict: bool
) -> tuple[list[str], dict[str, str]]:
    """Remove each finished job's directory: the ids removed, and each kept one's reason
    (``strict``: the first refusal is raised instead)."""
    removed: list[str] = []
    kept: dict[str, str] = {}
    for job in finished:
        try:
            remove_job(job.id, store=store, force=force)
            removed.append(job.id)
        except OracleError as error:
            if error.code == ErrorCode.JOB_NOT_FOUND:
                removed.append(job.id)  # gone already
                continue
            if strict:
                raise
            kept[job.id] = error.message
    return removed, kept
