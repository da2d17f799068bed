"""`oraculum presets`: the model selections a job can ask for."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from oraculum.cli.base import Command
from oraculum.cli.output import emit, table

if TYPE_CHECKING:
    from rich.console import Console


def _render(rows: list[dict[str, Any]], console: Console) -> None:
    shown = table("provider", "id", "label", "family", "effort", "tool")
    for row in rows:
        shown.add_row(
            row["provider"],
            row["id"],
            row["label"],
            row["modelFamily"],
            row["effort"] or "-",
            row["tool"] or "-",
        )
    console.print(shown)


@click.command("presets", cls=Command, examples=("oraculum presets", "oraculum presets --json"))
def presets_command() -> None:
    """List the ChatGPT presets, Grok and Gemini modes (ids, labels, model family, effort, tool)."""
    from oraculum.service.presets import presets

    # The documented JSON is the bare list of rows; a table is the richer human rendering.
    rows = presets().rows
    emit(rows, lambda console: _render(rows, console))
