"""`oraculum preflight`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from oraculum.cli.base import SESSION, Command
from oraculum.cli.output import MODE, console, emit

if TYPE_CHECKING:
    from rich.console import Console

    from oraculum.service.preflight import PreflightReport


def render_preflight(report: PreflightReport, out: Console) -> None:
    mark = "[green]ready[/]" if report.ready else "[red]blocked[/]"
    out.print(f"preflight: {mark}")
    for part, info in report.parts().items():
        extra = info.get("sessionId") or info.get("seedProfileDir") or info.get("executable") or ""
        state = "ok" if info.get("ready") else "not ready"
        out.print(f"  {part}: {state} {extra}".rstrip(), markup=False)
    if report.capacity is not None:
        out.print(f"  {report.capacity.line()}", markup=False)
    if not report.ready:
        out.print(f"  {report.text('cli')}", markup=False)


@click.command(
    "preflight",
    cls=Command,
    examples=("oraculum preflight", "oraculum preflight --provider grok --json"),
)
@click.option("--provider", metavar="NAME", help="chatgpt, grok, gemini or test.")
@click.option("--follow-up", metavar="JOB", help="Check readiness for a follow-up to this job.")
@SESSION
def preflight_command(provider: str | None, follow_up: str | None, session: str | None) -> None:
    """Check that a submission would be accepted now, and show capacity; changes nothing."""
    from oraculum.service.preflight import preflight

    report = preflight(session=session, provider=provider, follow_up_job=follow_up)
    error = report.blocker()
    if error is None:
        emit(report.to_json(), lambda out: render_preflight(report, out))
        return
    if not MODE.json:
        render_preflight(report, console())
    raise error
