"""`oraculum read [JOB]`: status, paths and the answer, rendered as Markdown."""

from __future__ import annotations

import typer

from oraculum.cli.app import app
from oraculum.cli.read_view import run_read
from oraculum.cli.wait_cmd import SESSION_OPTION
from oraculum.service import PREVIEW_CHARS


@app.command("read")
def read_command(
    job: str | None = typer.Argument(
        None, help="Job id, short form or prefix (any project); omit for this project's newest."
    ),
    raw: bool = typer.Option(
        False, "--raw", help="Print exactly response.md (the header goes to stderr)."
    ),
    full: bool = typer.Option(
        False, "--full", help=f"Whole answer in --json (default: first {PREVIEW_CHARS} chars)."
    ),
    recollect: bool = typer.Option(
        False, "--recollect", help="Collect a completed job's answer again (sends nothing)."
    ),
    session: str | None = SESSION_OPTION,
) -> None:
    """Show a job's status, paths and answer; reading a finished job settles its wake-up."""
    code = run_read(job, raw=raw, full=full, recollect=recollect, session=session)
    if code:
        raise typer.Exit(code)
