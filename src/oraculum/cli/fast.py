"""The fast start: a command line a hot command takes as written runs without typer.

Loading typer and validating its parameters costs a start-up about as long as archiving a
mid-sized project, and `oraculum archive` is measured against `tar | zstd` as a whole process.
So a command listed here (the archive, and the status, read and wait agents run many times a
turn) is parsed by a small, strict parser and run by the same function its typer command
calls. Anything this parser does not take as written (help, an unknown or
repeated option, a missing value, `--`) returns None and goes to typer, which owns the usage
text and the usage errors; `tests/cli/test_fast_start.py` holds both paths to one output and
one set of options.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, cast

__all__ = ["FAST_COMMANDS", "FastCommand", "fast_command", "parse"]


class FastCommand(NamedTuple):
    """One command the fast start takes: its flags and valued options (option → keyword,
    with the value's conversion, which raises ValueError for a value typer would refuse), how
    many positional arguments it takes (None: any number, as a list), and the function that
    runs it."""

    flags: dict[str, str]
    options: dict[str, tuple[str, Callable[[str], Any]]]
    run: str  # "module:function", imported only when the command runs; returns the exit code
    positionals: int | None = None

    def function(self) -> Callable[..., int | None]:
        module, name = self.run.split(":")
        return cast(Callable[..., int | None], getattr(importlib.import_module(module), name))


def _seconds(text: str) -> float:
    value = float(text)
    if not value >= 0:  # negative, or NaN
        raise ValueError(text)
    return value


def _count(low: int, high: int) -> Callable[[str], int]:
    def convert(text: str) -> int:
        value = int(text)
        if not low <= value <= high:
            raise ValueError(text)
        return value

    return convert


FAST_COMMANDS: dict[str, FastCommand] = {
    "archive": FastCommand(
        flags={
            "--list": "list_only",
            "--include-git-dir": "include_git_dir",
            "--allow-any-dir": "allow_any_dir",
        },
        options={
            "--provider": ("provider", str),
            "--out": ("out", Path),
            "--project": ("project", Path),
        },
        run="oraculum.cli.archiving:run_archive",
    ),
    # Agents run these many times a turn.
    "status": FastCommand(
        flags={"--all-projects": "all_projects"},
        options={"--limit": ("limit", _count(1, 1000)), "--session": ("session", str)},
        run="oraculum.cli.status_view:run_status",
        positionals=1,
    ),
    "read": FastCommand(
        flags={"--raw": "raw", "--full": "full", "--recollect": "recollect"},
        options={"--session": ("session", str)},
        run="oraculum.cli.read_view:run_read",
        positionals=1,
    ),
    "wait": FastCommand(
        flags={},
        options={"--session": ("session", str), "--timeout": ("timeout", _seconds)},
        run="oraculum.cli.waiting:run_wait",
        positionals=1,
    ),
}


def parse(command: FastCommand, args: list[str]) -> tuple[list[str], dict[str, Any]] | None:
    """(positionals, keywords) when ``args`` are exactly what ``command`` takes, else None."""
    positionals: list[str] = []
    keywords: dict[str, Any] = {}
    tokens = iter(args)
    for token in tokens:
        if not token.startswith("-"):
            positionals.append(token)
            continue
        name, has_value, value = token.partition("=")
        if name in command.flags and not has_value:
            keywords[command.flags[name]] = True
            continue
        if name not in command.options:
            return None  # help, a typo, `--`, a short option: typer's to answer
        keyword, kind = command.options[name]
        if not has_value:
            value = next(tokens, "")
        if keyword in keywords or not value or value.startswith("-"):
            return None  # repeated, missing or option-like: typer says what it makes of it
        try:
            keywords[keyword] = kind(value)
        except ValueError:
            return None  # typer's to refuse, in its words
    if command.positionals is not None and len(positionals) > command.positionals:
        return None
    return positionals, keywords


def fast_command(args: list[str]) -> Callable[[], int] | None:
    """The runner of ``args`` (after `--json` is taken out) when the fast start takes them."""
    if not args or args[0] not in FAST_COMMANDS:
        return None
    command = FAST_COMMANDS[args[0]]
    parsed = parse(command, args[1:])
    if parsed is None:
        return None
    positionals, keywords = parsed

    def run() -> int:
        # What the typer root callback does before any command.
        from oraculum.scheduler.hook import restart_runner_if_pending

        restart_runner_if_pending()
        # One positional is the argument itself; any number are a list (None when none).
        single = positionals[0] if positionals else None
        given = single if command.positionals == 1 else positionals or None
        return command.function()(given, **keywords) or 0

    return run
