"""`oraculum status [JOB]`."""

from __future__ import annotations

from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from oraculum.cli.app import app, emit
from oraculum.service.status import status
from oraculum.service.summary import describe_age


def render_jobs(result: dict[str, Any], console: Console) -> None:
    jobs = result["jobs"]
    if not jobs:
        where = result.get("project") or "any project"
        console.print(f"No oracle jobs for {where}.")
    else:
        table = Table(box=None, pad_edge=False)
        for column in ("id", "status", "phase", "age", "heartbeat", "queue"):
            table.add_column(column)
        for job in jobs:
            table.add_row(
                job["id"],
                job["status"],
                job["phase"],
                describe_age(job.get("ageSeconds")),
                describe_age(job.get("heartbeatAgeSeconds")),
                str(job["queuePosition"]) if "queuePosition" in job else "-",
            )
        console.print(table)
    for problem in result.get("problems", []):
        console.print(f"[yellow]warning[/]: {problem['message']}", markup=True)


def render_job(result: dict[str, Any], console: Console) -> None:
    job = result["job"]
    console.print(f"[bold]{job['id']}[/]  {job['status']} ({job['phase']})")
    for key in ("provider", "ageSeconds", "heartbeatAgeSeconds", "chatUrl", "responsePath"):
        if key in job:
            value = describe_age(job[key]) if key.endswith("Seconds") else job[key]
            console.print(f"  {key}: {value}", markup=False)
    if "error" in job:
        console.print(f"  error: {job['error']}", markup=False)


@app.command("status")
def status_command(
    job: str | None = typer.Argument(None, help="Job id or unique prefix; omit for recent jobs."),
    all_projects: bool = typer.Option(False, "--all-projects", help="Jobs of every project."),
    limit: int = typer.Option(10, "--limit", min=1, max=1000, help="How many recent jobs."),
) -> None:
    """Show one job, or the recent jobs of this project with their ids."""
    result = status(job, all_projects=all_projects, limit=limit)
    if job is None:
        emit(result, lambda console: render_jobs(result, console))
    else:
        emit(result, lambda console: render_job(result, console))
