"""`oraculum cancel JOB` and `oraculum clean <JOB|all>`."""

from __future__ import annotations

import typer

from oraculum.cli.app import app, emit


@app.command("cancel")
def cancel_command(
    job: str | None = typer.Argument(
        None, help="The job to cancel (any project): id, short form or prefix; required."
    ),
) -> None:
    """Cancel a queued or running job. Needs the id: it never guesses."""
    from oraculum.cli.status_view import project_note
    from oraculum.service.cancel import cancel

    result = cancel(job)
    emit(result.to_json(), text=result.text("cli") + project_note(result.job))


@app.command("clean")
def clean_command(
    target: str | None = typer.Argument(None, help="A finished job's id, or `all`."),
    expired: bool = typer.Option(
        False, "--expired", help="Remove every job past its retention (all projects)."
    ),
    force: bool = typer.Option(
        False, "--force", help="Remove finished jobs even inside their wake-up grace."
    ),
) -> None:
    """Remove finished jobs' directories: one, all of this project's, or the expired ones.
    Open jobs are never removed (cancel them first)."""
    from oraculum.service.clean import clean

    result = clean(target, expired=expired, force=force)
    emit(result.to_json(), text=result.text("cli"))
