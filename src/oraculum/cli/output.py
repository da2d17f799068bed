"""The one way commands print results and errors, without the command framework.

Commands are thin: they call a library function and hand its result to :func:`emit`. In JSON
mode (`--json` anywhere before `--`) every command prints exactly one JSON document on stdout:
the result object, or ``{"error": {...}}`` with the error's stable shape. Nothing here imports
rich until a command prints in words.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oraculum.core.columns import columns
from oraculum.core.errors import OracleError

if TYPE_CHECKING:
    from rich.console import Console, OverflowMethod
    from rich.table import Table

__all__ = [
    "MODE",
    "OutputMode",
    "WalkProgress",
    "columns",
    "console",
    "emit",
    "print_answer",
    "print_file_exactly",
    "report_error",
    "split_json_flag",
    "table",
]


class OutputMode:
    """How this process prints: one JSON document (``--json``) or words."""

    def __init__(self) -> None:
        self.json = False


MODE = OutputMode()


@cache
def console(*, stderr: bool = False) -> Console:
    """The human-output console (stdout, or stderr for progress and errors)."""
    # rich costs ~20 ms to import and JSON output never needs it: load it on first human output.
    from rich.console import Console

    made = Console(stderr=stderr, highlight=False, soft_wrap=True)
    if not made.is_terminal:
        # Piped or redirected output is read by programs and other tools, not at a width:
        # tables keep every id and path whole instead of cropping them to 80 columns.
        made.width = UNBOUNDED_WIDTH
    return made


# Wide enough for any id, path or table row; only tables and plain lines print under a pipe.
UNBOUNDED_WIDTH = 1 << 14


def print_answer(out: Console, text: str) -> None:
    """An answer for a person: Markdown wrapped to the terminal (never cropped), or, when the
    output is not a terminal, the Markdown exactly as saved."""
    if not out.is_terminal:  # soft wrapping neither wraps nor crops
        out.print(text.rstrip("\n"), markup=False, highlight=False, emoji=False, soft_wrap=True)
        return
    from rich.markdown import Markdown

    # The console soft-wraps plain lines; a rendered answer must wrap every block instead
    # (soft wrapping crops quotes, tables and code at the edge).
    out.print(Markdown(text), soft_wrap=False)


def print_file_exactly(path: Path) -> None:
    """``path``'s bytes on stdout and nothing else, so `> answer.md` copies the file."""
    sys.stdout.flush()
    sys.stdout.buffer.write(path.read_bytes())
    sys.stdout.buffer.flush()


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


def table(*headers: str, overflow: OverflowMethod = "ellipsis") -> Table:
    """The borderless rich table every command prints its rows in (rich loads here, when a
    command prints a table in words)."""
    from rich.table import Table

    made = Table(box=None, pad_edge=False)
    for header in headers:
        made.add_column(header, overflow=overflow)
    return made


def _write(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def report_error(error: OracleError) -> int:
    """Print ``error`` the way the output mode wants it; its exit code."""
    if MODE.json:
        sys.stdout.write(
            json.dumps({"error": error.to_dict()}, indent=2, ensure_ascii=False) + "\n"
        )
    else:
        stderr = console(stderr=True)
        stderr.print(f"error[{error.code}]: {error.message}", markup=False)
        if error.suggested_next_step:
            stderr.print(f"  next step: {error.suggested_next_step}", markup=False)
    return int(error.exit_code)


def split_json_flag(argv: list[str]) -> tuple[list[str], bool]:
    """Accept `--json` anywhere before `--`, so `oraculum status --json` works too."""
    if "--" in argv:
        cut = argv.index("--")
        head, tail = argv[:cut], argv[cut:]
    else:
        head, tail = argv, []
    found = "--json" in head
    return [a for a in head if a != "--json"] + tail, found


# A walk shows how far it got once it has looked at this many paths (a home directory or a
# large tree), on stderr and only on a terminal.
PROGRESS_AFTER = 4096


class WalkProgress:
    """The selection's progress on a terminal's stderr: one line, rewritten in place."""

    def __init__(self) -> None:
        self.stream = sys.stderr if sys.stderr.isatty() and not MODE.json else None
        self.shown = False

    def __call__(self, looked_at: int) -> None:
        if self.stream is None or looked_at < PROGRESS_AFTER or looked_at % 1024:
            return
        self.stream.write(f"\rarchive: looked at {looked_at:,} paths…")
        self.stream.flush()
        self.shown = True

    def done(self) -> None:
        if self.stream is not None and self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.shown = False
