"""`oraculum doctor`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from oraculum.cli.base import Command
from oraculum.cli.output import MODE, console, emit

if TYPE_CHECKING:
    from rich.console import Console

    from oraculum.service.doctor import DoctorReport

_MARKS = {"ok": "[green]ok[/]  ", "warn": "[yellow]warn[/]", "fail": "[red]FAIL[/]"}


def render_doctor(report: DoctorReport, out: Console) -> None:
    """The report's fields in colour, the live table as a table (the words are the report's)."""
    for check in report.checks:
        out.print(f"{_MARKS[check.status]}  {check.check}: ", end="")
        out.print(check.detail, markup=False)
        if check.next_step:
            out.print(f"        next step: {check.next_step}", markup=False)
    if report.live and report.live["entries"]:
        render_live(report.live, out)
    colour = "green" if report.ok else "red"
    out.print(f"doctor ({report.provider}): [{colour}]{report.verdict}[/]")


def render_live(live: dict[str, Any], out: Console) -> None:
    from rich.table import Table

    table = Table(title=f"Live vocabulary at {live['url']}", title_justify="left")
    for column in ("entry", "expected", "found", "ok"):
        table.add_column(column, overflow="fold")
    for entry in live["entries"]:
        mark = "[green]ok[/]" if entry["ok"] else "[red]NO[/]"
        table.add_row(entry["entry"], _plain(entry["expected"]), _plain(entry["found"]), mark)
    out.print(table)


def _plain(text: str) -> Any:
    from rich.text import Text

    return Text(text)  # page text is never markup


@click.command(
    "doctor", cls=Command, examples=("oraculum doctor", "oraculum doctor --provider grok --live")
)
@click.option("--provider", metavar="NAME", help="chatgpt, grok or gemini.")
@click.option(
    "--live",
    is_flag=True,
    help="Also open the provider's page on a throwaway clone of the seed (nothing is sent) "
    "and check every control the next job needs.",
)
def doctor_command(provider: str | None, live: bool) -> int:
    """Find what would make the next job fail: config, directories, Chromium, sign-in,
    capacity, stale leases, leftovers; --live checks the provider's page too. Changes nothing."""
    from oraculum.service.doctor import doctor

    report = doctor(provider, live=live)
    # Failing or not, the output is the report (in JSON its `error` names the failed checks);
    # a failure sets the exit code.
    emit(report.to_json(), lambda out: render_doctor(report, out))
    error = report.error
    if error is None:
        return 0
    if not MODE.json:
        console(stderr=True).print(f"error[{error.code}]: {error.message}", markup=False)
    return int(error.exit_code)
