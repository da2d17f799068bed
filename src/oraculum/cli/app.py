"""The typer application and the one way commands print results and errors.

Commands are thin: they call a library function and hand its result to :func:`emit`. In JSON
mode (`--json` anywhere before `--`) every command prints exactly one JSON document on stdout:
the result object, or ``{"error": {...}}`` with the error's stable shape.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import typer

from oraculum import __version__

if TYPE_CHECKING:
    from rich.console import Console

app = typer.Typer(
    name="oraculum",
    help="Consult ChatGPT and Grok web products as durable background jobs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@dataclass
class OutputMode:
    json: bool = False


MODE = OutputMode()


@cache
def console(*, stderr: bool = False) -> Console:
    """The human-output console (stdout, or stderr for progress and errors)."""
    # rich costs ~20 ms to import and JSON output never needs it: load it on first human output.
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=True)


def emit(
    data: Any, render: Callable[[Console], None] | None = None, *, text: str | None = None
) -> None:
    """Print a command's result: one JSON document, or the human rendering (``render``, or
    ``text`` as it is)."""
    if MODE.json:
        _write(json.dumps(data, indent=2, ensure_ascii=False, default=str))
    elif text is not None:
        _write(text)  # no rich needed for a plain line
    elif render is not None:
        render(console())
    else:
        console().print_json(data=data, default=str)


def _write(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


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
