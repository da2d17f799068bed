"""The typer application: the root options and the registry every command module joins.

Output goes through :mod:`oraculum.cli.output` (re-exported here for the command modules).
"""

from __future__ import annotations

import typer

from oraculum import __version__
from oraculum.cli.output import MODE, OutputMode, console, emit

__all__ = ["MODE", "OutputMode", "app", "console", "emit"]

app = typer.Typer(
    name="oraculum",
    help="Consult ChatGPT and Grok web products as durable background jobs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version_callback(value: bool) -> None:
    if value:
        emit({"version": __version__}, text=f"oraculum {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: bool = typer.Option(
        False, "--version", callback=_version_callback, is_eager=True, help="Print the version."
    ),
    json_output: bool = typer.Option(
        False, "--json", help="Print one JSON document instead of human output."
    ),
) -> None:
    """oraculum — background jobs against the ChatGPT and Grok web apps."""
    if json_output:
        MODE.json = True
    # Any command restarts the scheduler's runner when schedules are pending and none lives
    # (one stat when nothing is scheduled).
    from oraculum.scheduler.hook import restart_runner_if_pending

    restart_runner_if_pending()
