"""What every command is built from: click's command and group with a help page for people
(each argument explained, required ones marked, examples as written), and the parameters
several commands share, each declared once.

Help names values by what they are (`FILE`, `ID`, `N`), never by a Python type: every valued
option gives its metavar (`tests/cli/test_help_and_completion.py` walks every help page).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

__all__ = [
    "ALLOW_ANY_DIR",
    "CALLER",
    "HELP_OPTIONS",
    "SESSION",
    "Command",
    "Group",
    "Seconds",
    "argument",
]

F = TypeVar("F", bound=Callable[..., Any])

# `-h` is help wherever `--help` is (subcommands inherit it from the root's context).
HELP_OPTIONS = {"help_option_names": ["-h", "--help"]}


class Argument(click.Argument):
    """A positional argument whose help row says when it is required (as an option's does)."""

    def get_help_record(self, ctx: click.Context) -> tuple[str, str]:
        name, text = super().get_help_record(ctx)
        return name, f"{text}  [required]" if self.required else text


def argument(*decls: str, help: str, **attrs: Any) -> Callable[[F], F]:
    """``click.argument`` with its help (shown under Positional arguments)."""
    return click.argument(*decls, cls=Argument, help=help, **attrs)


class _Examples:
    """A help page's last section: how to call the command, as written."""

    examples: Sequence[str]

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)  # type: ignore[misc]
        if not self.examples:
            return
        # Never re-wrapped: each is a command line to copy.
        with formatter.section("Examples"):
            for line in self.examples:
                formatter.write(f"{'':>{formatter.current_indent}}{line}\n")


class Command(_Examples, click.Command):
    """A command whose help ends with ``examples`` of calling it."""

    def __init__(self, *args: Any, examples: Sequence[str] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.examples = examples


class Group(_Examples, click.Group):
    """A command with subcommands (listed sorted, each a :class:`Command`); with no
    arguments, its help."""

    command_class = Command
    group_class = type  # a subgroup is a Group too

    def __init__(self, *args: Any, examples: Sequence[str] = (), **kwargs: Any) -> None:
        kwargs.setdefault("no_args_is_help", True)
        super().__init__(*args, **kwargs)
        self.examples = examples


class Seconds(click.ParamType):
    """A duration in seconds: a finite number, zero or more."""

    name = "seconds"

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str:
        return "SECONDS"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds.", param, ctx)
        if not math.isfinite(seconds) or seconds < 0:
            self.fail(f"{value!r} is not a number of seconds (0 or more).", param, ctx)
        return seconds


_SESSION: dict[str, Any] = {"metavar": "ID", "help": "Session id (default: $ORACULUM_SESSION)."}

SESSION = click.option("--session", **_SESSION)


def _caller(ctx: click.Context, param: click.Parameter, session: str | None) -> Any:
    from oraculum.service.caller import Caller  # light: it resolves nothing until asked

    return Caller(session=session)


# `--session`, handed to an oracle command as the call's `caller` (oraculum.service.caller): the
# one context its services take.
CALLER = click.option("--session", "caller", callback=_caller, **_SESSION)

ALLOW_ANY_DIR = click.option(
    "--allow-any-dir",
    is_flag=True,
    help="Allow '.' (or no files) to archive a directory that is no project: your home "
    "directory, /, or one with no repository or project file (refused otherwise: "
    "archive_scope_unsafe).",
)
