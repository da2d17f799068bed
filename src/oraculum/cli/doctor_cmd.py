"""`oraculum doctor`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from oraculum.cli.app import MODE, app, console, emit

if TYPE_CHECKING:
    from rich.console import Console

_MARKS = {"ok": "[green]ok[/]  ", "warn": "[yellow]warn[/]", "fail": "[red]FAIL[/]"}


def render_doctor(result: dict[str, Any], out: Console) -> None:
    for check in result["checks"]:
        out.print(f"{_MARKS.get(check['status'], check['status'])}  {check['check']}: ", end="")
        out.print(check["detail"], markup=False)
        if check.get("nextStep"):
            out.print(f"        next step: {check['nextStep']}", markup=False)
    live = result.get("live")
    if live and live["entries"]:
        render_live(live, out)
    verdict = "[green]no problems found[/]" if result["ok"] else "[red]problems found[/]"
    out.print(f"doctor ({result['provider']}): {verdict}")


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


@app.command("doctor")
def doctor_command(
    provider: str | None = typer.Option(None, "--provider", help="chatgpt or grok."),
    live: bool = typer.Option(
        False,
        "--live",
        help="Also open the provider's page on a throwaway clone of the seed (nothing is sent) "
        "and check every control the next job needs.",
    ),
) -> None:
    """Find what would make the next job fail: config, directories, Chromium, sign-in,
    capacity, stale leases, leftovers; --live checks the provider's page too. Changes nothing."""
    from oraculum.service.doctor import doctor, doctor_error

    result = doctor(provider, live=live)
    # Failing or not, the output is the report (in JSON its `error` names the failed checks);
    # a failure sets the exit code.
    emit(result, lambda out: render_doctor(result, out))
    error = doctor_error(result)
    if error is not None:
        if not MODE.json:
            console(stderr=True).print(f"error[{error.code}]: {error.message}", markup=False)
        raise typer.Exit(int(error.exit_code))
