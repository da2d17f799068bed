"""Command-line surface: :func:`main` runs one command line and returns its exit code.

Importing this package loads no command framework: a command line the fast path takes
(:mod:`oraculum.cli.fast`) runs without typer; any other loads typer and the command modules
it names (:func:`load_commands`).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from oraculum.cli.output import MODE, report_error, split_json_flag
from oraculum.core.errors import ExitCode, OracleError
from oraculum.core.ownenv import apply_own_defaults

if TYPE_CHECKING:
    import typer

# Command modules register on the typer app when imported: every `*_cmd` module of this
# package is one (a new command is a new module; nothing else to edit). They import only typer
# and light modules at the top and load their library code (services, browsers, servers) inside
# the commands that run it.
COMMAND_MODULES = tuple(
    sorted(
        name.removesuffix(".py")
        for name in os.listdir(os.path.dirname(__file__))
        if name.endswith("_cmd.py")
    )
)
__all__ = ["COMMAND_MODULES", "entrypoint", "load_commands", "main"]


def load_commands(args: list[str] | None = None) -> None:
    """Register the commands ``args`` can reach: only the named command's module when one is
    named `<command>_cmd` (a start-up then imports one module, not every one), else all of
    them (help, a command living in another command's module, a typo to suggest for)."""
    named = next((a for a in args or [] if not a.startswith("-")), None)
    module = f"{named}_cmd" if named else None
    for name in (module,) if module in COMMAND_MODULES else COMMAND_MODULES:
        importlib.import_module(f"oraculum.cli.{name}")


def main(argv: list[str] | None = None, *, fast: bool = True) -> int:
    """Run one command line; its exit code. ``fast=False`` always takes the typer path (the
    tests hold the two paths to the same output)."""
    return _run(argv, fast=fast)[0]


def _run(argv: list[str] | None, *, fast: bool) -> tuple[int, bool]:
    """(exit code, whether the fast start ran it)."""
    args, json_mode = split_json_flag(list(sys.argv[1:] if argv is None else argv))
    MODE.json = json_mode
    from oraculum.cli.fast import fast_command

    quick = fast_command(args) if fast else None
    if quick is not None:
        return _reporting(quick), True
    return _reporting(lambda: _run_typer(args)), False


def _reporting(run: Callable[[], int]) -> int:
    """``run``'s exit code; an error, whatever raised it, in its stable shape."""
    try:
        return run()
    except OracleError as error:
        return report_error(error)
    except KeyboardInterrupt:
        return report_error(OracleError("interrupted", "Interrupted."))
    except Exception as exc:  # a bug or an unmapped OS fault: the error shape, never a traceback
        from oraculum.core.crashlog import surface_error

        return report_error(surface_error(exc, surface="cli"))


def _run_typer(args: list[str]) -> int:
    import typer

    registry = importlib.import_module("oraculum.cli.app")  # the module: tests patch its app
    load_commands(args)
    try:
        result = registry.app(args=args, prog_name="oraculum", standalone_mode=False)
    except typer.Exit as done:
        return int(done.exit_code or 0)
    except typer.Abort:
        return report_error(OracleError("interrupted", "Interrupted."))
    except typer.TyperException as usage:  # typer's (vendored click) usage errors
        if MODE.json:
            return report_error(OracleError("invalid_argument", usage.format_message()))
        _show_usage_error(usage)
        return int(ExitCode.INVALID_INPUT)
    return int(result or 0) if isinstance(result, int) else 0


def _show_usage_error(error: typer.TyperException) -> None:
    # Click's exceptions print themselves (usage line and hint); a bare TyperException has
    # no show(), so it gets click's plain "Error: ..." line.
    import typer

    show = getattr(error, "show", None)
    if callable(show):
        show()
    else:
        typer.echo(f"Error: {error.format_message()}", err=True)


def entrypoint() -> None:
    apply_own_defaults()
    code, quick = _run(None, fast=True)
    if quick:
        # A fast command has finished its work (its files written and synced) once its output
        # is out, so its process ends without the interpreter's teardown: freeing the objects
        # of a 20,000-file selection alone takes ~30 ms.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
