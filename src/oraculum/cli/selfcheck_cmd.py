"""`oraculum selfcheck`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from oraculum.cli.base import Command
from oraculum.cli.output import MODE, console, emit

if TYPE_CHECKING:
    from rich.console import Console

    from oraculum.service.selfcheck import SelfcheckReport


def render_selfcheck(report: SelfcheckReport, out: Console) -> None:
    for check in report.checks:
        mark = "[green]ok[/]" if check.ok else "[red]FAIL[/]"
        out.print(f"{mark}  {check.check}: ", end="")
        out.print(check.detail, markup=False)


@click.command("selfcheck", cls=Command)
def selfcheck_command() -> None:
    """Check that this machine can run jobs: directories, Chromium, a headless launch."""
    from oraculum.service.selfcheck import selfcheck

    report = selfcheck()
    error = report.error
    if error is None:
        emit(report.to_json(), lambda out: render_selfcheck(report, out))
        return
    if not MODE.json:
        render_selfcheck(report, console())
    raise error
