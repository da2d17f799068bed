"""`oraculum preflight`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from oraculum.cli.base import CALLER, Command
from oraculum.cli.output import MODE, console, emit

if TYPE_CHECKING:
    from rich.console import Console

    from oraculum.service.caller import Caller
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
    for warning in report.warnings:
        out.print(f"  warning ({warning.check}): {warning.detail}", markup=False)
        if warning.next_step:
            out.print(f"    next step: {warning.next_step}", markup=False)
    if not report.ready:
        out.print(f"  {report.text('cli')}", markup=False)


@click.command(
    "preflight",
    cls=Command,
    examples=(
        "oraculum preflight",
        "oraculum preflight --live   # also look at the page: is the preset locked?",
        "oraculum preflight --provider grok --json",
    ),
)
@click.option("--provider", metavar="NAME", help="chatgpt, grok, gemini or test.")
@click.option(
    "--live",
    is_flag=True,
    help="Also open the provider's page on a throwaway clone of the seed and warn about what "
    "a job would meet there (a preset the account's plan lacks); sends nothing.",
)
@click.option("--follow-up", metavar="JOB", help="Check readiness for a follow-up to this job.")
@CALLER
def preflight_command(
    provider: str | None, live: bool, follow_up: str | None, caller: Caller
) -> None:
    """Check that a submission would be accepted now, and show capacity; changes nothing."""
    from oraculum.service.preflight import preflight

    report = preflight(caller=caller, provider=provider, follow_up_job=follow_up, live=live)
    error = report.blocker()
    if error is None:
        emit(report.to_json(), lambda out: render_preflight(report, out))
        return
    if not MODE.json:
        render_preflight(report, console())
    raise error
