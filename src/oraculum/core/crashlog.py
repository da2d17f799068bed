"""What a surface (CLI, MCP server) reports for an exception no layer turned into an
OracleError: never a traceback on the terminal, but the one error shape, pointing at a private
log file that holds the traceback.

An OSError that reaches a surface is still a filesystem fault with a precise code
(`disk_full`, `io_error`, see :func:`oraculum.core.fsio.os_error`); anything else is
`internal_error`. Both keep their traceback in `<state dir>/logs/internal-<time>-<pid>.log`.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from pathlib import Path

from oraculum import __version__
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.fsio import DISK_FULL_ERRNOS, ensure_private_dir, os_error, write_private_file
from oraculum.core.paths import state_dir

# argv can hold a whole prompt: enough of each argument to recognise the call.
_ARG_CHARS = 200


def log_dir() -> Path:
    return state_dir() / "logs"


def surface_error(exc: BaseException, *, surface: str) -> OracleError:
    """The OracleError a surface reports for ``exc``; an unexpected one is logged first."""
    if isinstance(exc, OracleError):
        return exc
    log = write_crash_log(exc, surface=surface)
    if isinstance(exc, OSError):
        error = os_error(exc, action="write" if exc.errno in DISK_FULL_ERRNOS else "access")
        if log is not None:
            error.details["log"] = str(log)
        return error
    return internal_error(exc, log)


def internal_error(exc: BaseException, log: Path | None) -> OracleError:
    where = (
        f"The traceback is in {log}."
        if log is not None
        else "Its traceback could not be written to a log file."
    )
    return OracleError(
        ErrorCode.INTERNAL_ERROR,
        f"An unexpected internal error occurred ({type(exc).__name__}: {exc}). {where}",
        suggested_next_step="Report it as a bug with that log file; retrying may not help.",
        details={"log": str(log) if log is not None else None, "exception": type(exc).__name__},
    )


def crash_log_path(now: float, pid: int, attempt: int = 0) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now)) + f"{now % 1:.3f}"[1:] + "Z"
    suffix = f"-{attempt}" if attempt else ""  # two crashes of one process in one millisecond
    return log_dir() / f"internal-{stamp}-{pid}{suffix}.log"


def crash_report(exc: BaseException, *, surface: str, argv: list[str]) -> str:
    """The log's text: what ran, where, and the traceback."""
    args = " ".join(a if len(a) <= _ARG_CHARS else a[:_ARG_CHARS] + "…" for a in argv)
    lines = [
        f"oraculum {__version__} ({surface}), Python {sys.version.split()[0]}, pid {os.getpid()}",
        f"argv: {args}",
        "",
        "".join(traceback.format_exception(exc)),
    ]
    return "\n".join(lines)


def write_crash_log(exc: BaseException, *, surface: str) -> Path | None:
    """Write the report (0600, in a 0700 directory); None when even that fails (a full
    disk): the error is reported without it rather than not at all."""
    now, pid = time.time(), os.getpid()
    data = crash_report(exc, surface=surface, argv=list(sys.argv)).encode("utf-8", "replace")
    for attempt in range(5):
        path = crash_log_path(now, pid, attempt)
        try:
            ensure_private_dir(path.parent)
            write_private_file(path, data)
        except FileExistsError:
            continue
        except (OSError, OracleError):
            return None
        return path
    return None
