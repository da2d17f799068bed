"""`oraculum read [JOB]`'s work and its human view (the answer as Markdown), shared by the
typer command (:mod:`oraculum.cli.read_cmd`) and the fast start (:mod:`oraculum.cli.fast`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from oraculum.cli.output import MODE, emit
from oraculum.core.errors import ExitCode
from oraculum.service import PREVIEW_CHARS

__all__ = ["render_read", "run_read"]

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
    if job.get("nextStep"):
        out.print(f"  answer not saved; next step: {job['nextStep']}", markup=False)
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


def run_read(
    job: str | None = None,
    *,
    raw: bool = False,
    full: bool = False,
    recollect: bool = False,
    session: str | None = None,
) -> int:
    """Show a job's status, paths and answer; reading a finished job settles its wake-up.
    Exit 6 when the provider finished the answer but it is not saved and this read did not
    start the recollection that collects it (`answer_not_saved`)."""
    from oraculum.service.read import read

    result = read(
        job,
        session=session,
        action="recollect" if recollect else None,
        source="oracle_read_command",
        preview_chars=PREVIEW_CHARS if MODE.json and not full else None,
    )
    emit(result.to_json(), lambda out: render_read(result, out, raw=raw))
    recollecting = result.recollection is not None and result.recollection.started
    if result.job.get("answerSaved") is False and not recollecting:
        return int(ExitCode.JOB_UNSUCCESSFUL)
    return 0
