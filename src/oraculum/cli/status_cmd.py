"""`oraculum status [JOB]`."""

from __future__ import annotations

import typer

from oraculum.cli.app import app
from oraculum.cli.status_view import run_status


@app.command("status")
def status_command(
    job: str | None = typer.Argument(
        None, help="Job id, short form or prefix (any project); omit for recent jobs."
    ),
    all_projects: bool = typer.Option(False, "--all-projects", help="Jobs of every project."),
    limit: int = typer.Option(10, "--limit", min=1, max=1000, help="How many recent jobs."),
    session: str | None = typer.Option(
        None, "--session", help="Session id (default: $ORACULUM_SESSION).", show_default=False
    ),
) -> None:
    """Show one job, or the recent jobs of this project with their ids."""
    run_status(job, all_projects=all_projects, limit=limit, session=session)
