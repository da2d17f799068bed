"""`oraculum read [JOB]`: status, paths and the answer, rendered as Markdown."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from oraculum.cli.base import CALLER, Command, argument
from oraculum.cli.output import MODE, console, emit, print_answer, print_file_exactly
from oraculum.core.errors import ExitCode
from oraculum.service import PREVIEW_CHARS

__all__ = ["read_command", "render_header", "render_read"]

if TYPE_CHECKING:
    from rich.console import Console

    from oraculum.service.caller import Caller
    from oraculum.service.read import ReadResult


def render_header(result: ReadResult, out: Console) -> None:
    """The job's status line, paths, gaps, artifacts and error."""
    job, response = result.job, result.response
    out.print(f"[bold]{job['id']}[/]  {job['status']} ({job['phase']})")
    out.print(f"  project: {job['projectRoot']}", markup=False)
    out.print(f"  response: {response.path}", markup=False)
    out.print(f"  artifacts: {job['artifactsPath']}", markup=False)
    for name, value in result.gaps.items():
        out.print(f"  {name}: {value}", markup=False)
    for artifact in result.artifacts:
        out.print(f"  artifact: {artifact.get('path') or artifact}", markup=False)
    if job.get("error"):
        out.print(f"  error: {job['error']}", markup=False)
    if job.get("nextStep"):
        out.print(f"  answer not saved; next step: {job['nextStep']}", markup=False)
    if result.recollection is not None:
        out.print(f"  {result.recollection.message}", markup=False)
    if not response.available:
        out.print("\nResponse file: unavailable yet", markup=False)


def render_read(result: ReadResult, out: Console) -> None:
    """The human rendering: the header, then the answer (Markdown on a terminal, as saved
    anywhere else)."""
    render_header(result, out)
    response = result.response
    if not response.available:
        return
    out.print()
    print_answer(out, response.preview)
    if response.truncated:
        out.print(f"… (truncated; the whole answer is in {response.path})", markup=False)


@click.command(
    "read",
    cls=Command,
    examples=(
        "oraculum read                 # this project's newest job",
        "oraculum read 3k9x2a",
        "oraculum read 3k9x2a --raw > answer.md",
        "oraculum read 3k9x2a --json --full",
    ),
)
@argument(
    "job",
    required=False,
    help="Job id, short form or prefix (any project); omit for this project's newest.",
)
@click.option("--raw", is_flag=True, help="Print exactly response.md (the header goes to stderr).")
@click.option(
    "--full", is_flag=True, help=f"Whole answer in --json (default: first {PREVIEW_CHARS} chars)."
)
@click.option(
    "--recollect", is_flag=True, help="Collect a completed job's answer again (sends nothing)."
)
@CALLER
def read_command(job: str | None, raw: bool, full: bool, recollect: bool, caller: Caller) -> int:
    """Show a job's status, paths and answer; reading a finished job settles its wake-up.
    Exit 6 when the provider finished the answer but it is not saved and this read did not
    start the recollection that collects it (answer_not_saved)."""
    from oraculum.jobs.ids import is_council_ref

    if is_council_ref(job):  # a council: its council.md
        from oraculum.cli.council_cmd import show_council

        return show_council(job or "", "read")
    from oraculum.service.read import read

    result = read(
        job,
        caller=caller,
        action="recollect" if recollect else None,
        source="oracle_read_command",
        preview_chars=PREVIEW_CHARS if MODE.json and not full else None,
    )
    if raw and not MODE.json:
        render_header(result, console(stderr=True))
        if result.response.available:
            print_file_exactly(result.response.path)
    else:
        emit(result.to_json(), lambda out: render_read(result, out))
    recollecting = result.recollection is not None and result.recollection.started
    if result.job.get("answerSaved") is False and not recollecting:
        return int(ExitCode.JOB_UNSUCCESSFUL)
    return 0
