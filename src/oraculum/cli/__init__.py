"""Command-line surface: :func:`main` runs one command line and returns its exit code.

The commands are a click application (:mod:`oraculum.cli.app`); a start imports only the
command it runs. Every outcome leaves in one shape: a result, or an error with its stable code
and exit code (a usage error is ``invalid_argument``, exit 2), never a traceback.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable

from oraculum.cli.output import MODE, report_error, split_json_flag
from oraculum.core.errors import ErrorCode, ExitCode, OracleError
from oraculum.core.ownenv import apply_own_defaults

__all__ = ["entrypoint", "main"]

PROG = "oraculum"


def main(argv: list[str] | None = None) -> int:
    """Run one command line; its exit code."""
    args, json_mode = split_json_flag(list(sys.argv[1:] if argv is None else argv))
    MODE.json = json_mode
    return _reporting(lambda: _run_click(args))


def _reporting(run: Callable[[], int]) -> int:
    """``run``'s exit code; an error, whatever raised it, in its stable shape."""
    try:
        return run()
    except OracleError as error:
        return report_error(error)
    except KeyboardInterrupt:
        return report_error(OracleError(ErrorCode.INTERRUPTED, "Interrupted."))
    except Exception as exc:  # a bug or an unmapped OS fault: the error shape, never a traceback
        from oraculum.core.crashlog import surface_error

        return report_error(surface_error(exc, surface="cli"))


def _run_click(args: list[str]) -> int:
    import click

    registry = importlib.import_module("oraculum.cli.app")  # the module: tests patch its app
    try:
        # Not standalone: click returns the command's result (an exit code, or None) and
        # raises its errors here, to be shown the way the output mode wants them.
        result = registry.app.main(args=args, prog_name=PROG, standalone_mode=False)
    except click.exceptions.Exit as done:  # in case a click version raises it through
        return int(done.exit_code or 0)
    except click.Abort:
        return report_error(OracleError(ErrorCode.INTERRUPTED, "Interrupted."))
    except click.ClickException as usage:
        if MODE.json:
            return report_error(OracleError(ErrorCode.INVALID_ARGUMENT, usage.format_message()))
        usage.show()  # click's own words: the usage line, a hint, the error
        return int(ExitCode.INVALID_INPUT)
    return int(result) if isinstance(result, int) else 0


def entrypoint() -> None:
    apply_own_defaults()
    sys.exit(main())
