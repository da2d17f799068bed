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
from typing import Any

import typer
from rich.console import Console

from oraculum import __version__

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

console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)


def emit(data: Any, render: Callable[[Console], None] | None = None) -> None:
    """Print a command's result: one JSON document, or the human rendering."""
    if MODE.json:
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
        sys.stdout.flush()
        return
    if render is not None:
        render(console)
    else:
        console.print_json(data=data, default=str)


def _version_callback(value: bool) -> None:
    if value:
        emit({"version": __version__}, lambda c: c.print(f"oraculum {__version__}"))
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
