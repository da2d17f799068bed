"""`oraculum wait [JOB]`: block until a job (or the session's next job) ends; print its
wake-up (the work is :mod:`oraculum.cli.waiting`'s)."""

from __future__ import annotations

import typer

from oraculum.cli.app import app
from oraculum.cli.waiting import run_wait

SESSION_OPTION = typer.Option(
    None, "--session", help="Session id (default: $ORACULUM_SESSION).", show_default=False
)


@app.command("wait")
def wait_command(
    job: str | None = typer.Argument(
        None, help="Job id, short form or prefix (any project); omit for the session's next."
    ),
    session: str | None = SESSION_OPTION,
    timeout: float | None = typer.Option(
        None, "--timeout", min=0, help="Give up after this many seconds (exit 5)."
    ),
) -> None:
    """Block until the job ends (or, without JOB, until the session's next job ends) and print
    the wake-up text. Exit 6 when that job failed or was cancelled."""
    code = run_wait(job, session=session, timeout=timeout)
    if code:
        raise typer.Exit(code)
