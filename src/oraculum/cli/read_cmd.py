"""`oraculum read [JOB]`: status, paths and the answer, rendered as Markdown."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from oraculum.cli.app import MODE, app, emit
from oraculum.cli.wait_cmd import SESSION_OPTION
from oraculum.service import PREVIEW_CHARS

if TYPE_CHECKING:
    from rich.console import Console

    from oraculum.service.read import ReadResult


def render_read(result: ReadResult, out: Console, *, raw: bool = False) -> None:
    """The richer human rendering: the job's paths and gaps, then the answer as Markdown."""
    from rich.markdown import Markdown

    job, response = result.job, result.response
    out.print(f"[bold]{job['id']}[/]  {job['status']} ({job['phase']})")
    out.print(f"  response: {response.path}", markup=False)
    out.print(f"  artifacts: {job['artifactsPath']}", markup=False)
    for name, value in result.gaps.items():
        out.print(f"  {name}: {value}", markup=False)
    for artifact in result.artifacts:
        out.print(f"  artifact: {artifact.get('path') or artifact}", markup=False)
    if job.get("error"):
        out.print(f"  error: {job['error']}", markup=False)
    if result.recollection is not None:
        out.print(f"  {result.recollection.message}", markup=False)
    out.print()
    if not response.available:
        out.print("Response file: unavailable yet", markup=False)
        return
    text = response.preview
    if raw:
        out.print(text, markup=False, highlight=False, end="" if text.endswith("\n") else "\n")
    else:
        out.print(Markdown(text))
    if response.truncated:
        out.print(f"… (truncated; the whole answer is in {response.path})", markup=False)


@app.command("read")
def read_command(
    job: str | None = typer.Argument(None, help="Job id or prefix; omit for the newest."),
    raw: bool = typer.Option(False, "--raw", help="Print the answer as plain text."),
    full: bool = typer.Option(
        False, "--full", help=f"Whole answer in --json (default: first {PREVIEW_CHARS} chars)."
    ),
    recollect: bool = typer.Option(
        False, "--recollect", help="Collect a completed job's answer again (sends nothing)."
    ),
    session: str | None = SESSION_OPTION,
) -> None:
    """Show a job's status, paths and answer; reading a finished job settles its wake-up."""
    from oraculum.service.read import read

    result = read(
        job,
        session=session,
        action="recollect" if recollect else None,
        source="oracle_read_command",
        preview_chars=PREVIEW_CHARS if MODE.json and not full else None,
    )
    emit(result.to_json(), lambda out: render_read(result, out, raw=raw))
