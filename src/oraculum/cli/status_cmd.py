"""`oraculum status [JOB]`: one job, or the recent jobs, and the words both are shown in."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from oraculum.cli.base import CALLER, Command, argument
from oraculum.cli.output import emit, table

if TYPE_CHECKING:
    from rich.console import Console

    from oraculum.service.caller import Caller

__all__ = [
    "heartbeat_cell",
    "phase_cell",
    "project_note",
    "render_job",
    "render_jobs",
    "status_command",
]

# A heartbeat older than this reads as "likely stale" (the worker's stale threshold default).
STALE_HEARTBEAT_S = 180


def heartbeat_cell(job: dict[str, Any]) -> str:
    """`fresh (12s)` / `stale (4m)` for running jobs; the age alone otherwise."""
    from oraculum.service.summary import describe_age

    age = job.get("heartbeatAgeSeconds")
    if job["status"] not in ("submitted", "waiting"):
        return "-"
    if age is None:
        return f"waiting ({describe_age(job.get('ageSeconds'))})"
    freshness = "fresh" if age < STALE_HEARTBEAT_S else "stale"
    return f"{freshness} ({describe_age(age)})"


def phase_cell(job: dict[str, Any]) -> str:
    """The phase in words, marked while a Deep Research job researches."""
    from oraculum.service.summary import phase_words

    researching = (job.get("research") or {}).get("state") == "researching"
    phase = phase_words(job["phase"])
    return f"{phase} (researching)" if researching else phase


def queue_cell(job: dict[str, Any]) -> str:
    queue = job.get("queue") or {}
    if queue.get("position"):
        return f"{queue['position']} of {queue['depth']}"
    return "-"


def project_note(job: dict[str, Any] | None) -> str:
    """A line naming the job's project when that is not the current directory's (a job id
    works from anywhere: the person should see whose job it was); "" otherwise."""
    from oraculum.core.project import find_project_root

    if job is None or job.get("projectRoot") in (None, str(find_project_root())):
        return ""
    return f"\nProject: {job['projectRoot']}"


def render_jobs(result: dict[str, Any], console: Console) -> None:
    """The list, each job by its whole id (its last characters name it from anywhere too);
    across projects (``project`` None) with each job's project."""
    from oraculum.service.summary import describe_age

    jobs = result["jobs"]
    every_project = result.get("project") is None
    if not jobs:
        where = result.get("project") or "any project"
        console.print(f"No oracle jobs for {where}.")
    else:
        headers = ("id", "status", "phase", "age", "heartbeat", "queue")
        shown = table(*headers, *(("project",) if every_project else ()))
        for job in jobs:
            cells = [
                job["id"],
                job["status"],
                phase_cell(job),
                describe_age(job.get("ageSeconds")),
                heartbeat_cell(job),
                queue_cell(job),
            ]
            shown.add_row(*cells, *((job["projectRoot"],) if every_project else ()))
        console.print(shown)
    for problem in result.get("problems", []):
        console.print(f"[yellow]warning[/]: {problem['message']}", markup=True)


def render_job(result: dict[str, Any], console: Console) -> None:
    from oraculum.service.status import selection_words
    from oraculum.service.summary import describe_age, ended_next_step, phase_words

    job = result["job"]
    console.print(f"[bold]{job['id']}[/]  {job['status']} ({phase_words(job['phase'])})")
    observed = job.get("observedSelection") or {}
    rows = {
        "provider": selection_words(job),
        "model shown": observed.get("label") or observed.get("model"),
        "project": job.get("projectRoot"),
        "age": describe_age(job.get("ageSeconds")),
        "heartbeat": heartbeat_cell(job),
        "queue": queue_cell(job),
        "chat": job.get("chatUrl"),
        "response": job["responsePath"] if job.get("responseAvailable") else "unavailable yet",
        "artifacts": job.get("artifactsPath"),
        "worker-log": job.get("workerLogPath"),
        "follow-up-to": job.get("followUpToJobId"),
        "researching": (job.get("research") or {}).get("text"),
        "research-question": (job.get("research") or {}).get("questionPath"),
    }
    for key, value in rows.items():
        if value not in (None, "-", ""):
            console.print(f"  {key}: {value}", markup=False)
    if job.get("lastEvent"):
        event = job["lastEvent"]
        console.print(f"  last-event: [{event['source']}] {event['message']}", markup=False)
    if "error" in job:
        code = f" [{job['errorCode']}]" if job.get("errorCode") else ""
        console.print(f"  error{code}: {job['error']}", markup=False)
    step = ended_next_step(job)
    if step:
        console.print(f"  next step: {step}", markup=False)


@click.command(
    "status",
    cls=Command,
    examples=(
        "oraculum status",
        "oraculum status 3k9x2a",
        "oraculum status --all-projects --limit 50",
        "oraculum status --json",
    ),
)
@argument(
    "job", required=False, help="Job id, short form or prefix (any project); omit for recent jobs."
)
@click.option("--all-projects", is_flag=True, help="Jobs of every project.")
@click.option(
    "--limit",
    type=click.IntRange(1, 1000),
    metavar="N",
    default=10,
    show_default=True,
    help="How many recent jobs.",
)
@CALLER
def status_command(job: str | None, all_projects: bool, limit: int, caller: Caller) -> None:
    """Show one job, or the recent jobs of this project with their ids."""
    from oraculum.jobs.ids import is_council_ref

    if is_council_ref(job):  # a council: its members and their states
        from oraculum.cli.council_cmd import show_council

        show_council(job or "", "status")
        return
    from oraculum.service.status import status

    # The human view is a richer rendering (a table, heartbeats) of the documented JSON.
    shape = status(job, all_projects=all_projects, limit=limit, caller=caller).to_json()
    if job is None:
        emit(shape, lambda console: render_jobs(shape, console))
    else:
        emit(shape, lambda console: render_job(shape, console))
