"""Command-line surface. Each command module registers itself on :data:`app`."""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys

import typer

from oraculum.cli.app import MODE, app, console
from oraculum.core.errors import ExitCode, OracleError

# Command modules register on `app` when imported: every `*_cmd` module of this package is one
# (a new command is a new module; nothing else to edit). They import only typer and light
# modules at the top and load their library code (services, browsers, servers) inside the
# commands that run it.
COMMAND_MODULES = tuple(
    sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.endswith("_cmd"))
)
__all__ = ["app", "entrypoint", "load_commands", "main"]


def load_commands(args: list[str] | None = None) -> None:
    """Register the commands ``args`` can reach: only the named command's module when one is
    named `<command>_cmd` (a start-up then imports one module, not every one), else all of
    them (help, a command living in another command's module, a typo to suggest for)."""
    named = next((a for a in args or [] if not a.startswith("-")), None)
    module = f"{named}_cmd" if named else None
    for name in (module,) if module in COMMAND_MODULES else COMMAND_MODULES:
        importlib.import_module(f"oraculum.cli.{name}")


def _split_json_flag(argv: list[str]) -> tuple[list[str], bool]:
    """Accept `--json` anywhere before `--`, so `oraculum status --json` works too."""
    if "--" in argv:
        cut = argv.index("--")
        head, tail = argv[:cut], argv[cut:]
    else:
        head, tail = argv, []
    found = "--json" in head
    return [a for a in head if a != "--json"] + tail, found


def _report_error(error: OracleError) -> int:
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


def _show_usage_error(error: typer.TyperException) -> None:
    # Click's exceptions print themselves (usage line and hint); a bare TyperException has
    # no show(), so it gets click's plain "Error: ..." line.
    show = getattr(error, "show", None)
    if callable(show):
        show()
    else:
        typer.echo(f"Error: {error.format_message()}", err=True)


def main(argv: list[str] | None = None) -> int:
    args, json_mode = _split_json_flag(list(sys.argv[1:] if argv is None else argv))
    MODE.json = json_mode
    load_commands(args)
    try:
        result = app(args=args, prog_name="oraculum", standalone_mode=False)
    except OracleError as error:
        return _report_error(error)
    except typer.Exit as done:
        return int(done.exit_code or 0)
    except (typer.Abort, KeyboardInterrupt):
        return _report_error(OracleError("interrupted", "Interrupted."))
    except typer.TyperException as usage:  # typer's (vendored click) usage errors
        if MODE.json:
            return _report_error(OracleError("invalid_argument", usage.format_message()))
        _show_usage_error(usage)
        return int(ExitCode.INVALID_INPUT)
    except Exception as exc:  # a bug or an unmapped OS fault: the error shape, never a traceback
        from oraculum.core.crashlog import surface_error

        return _report_error(surface_error(exc, surface="cli"))
    return int(result or 0) if isinstance(result, int) else 0


def entrypoint() -> None:
    sys.exit(main())
