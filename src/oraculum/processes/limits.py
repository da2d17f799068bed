"""The managed-process limits and the pure checks of a start request."""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Sequence

from oraculum.core.errors import ErrorCode, OracleError

__all__ = [
    "ARGV_ITEMS",
    "ARGV_TOTAL_BYTES",
    "ARG_ITEM_BYTES",
    "MAX_ACTIVE",
    "MAX_RECORDS",
    "OUTPUT_CALL_BYTES",
    "PATH_BYTES",
    "STOP_GRACE_S",
    "TAIL_BYTES",
    "VERIFY_DEADLINE_S",
    "check_start",
    "runnable",
    "shell_hint",
]

MAX_ACTIVE = 8
MAX_RECORDS = 64
ARGV_ITEMS = 128
ARG_ITEM_BYTES = 8_000
ARGV_TOTAL_BYTES = 64 * 1024
PATH_BYTES = 8_000
TAIL_BYTES = 64 * 1024
OUTPUT_CALL_BYTES = 20 * 1024
STOP_GRACE_S = 0.75
VERIFY_DEADLINE_S = 2.0


def _too_large(message: str, **details: int) -> OracleError:
    return OracleError(
        ErrorCode.PROCESS_ARGV_TOO_LARGE,
        message,
        details=details,
        suggested_next_step="Pass fewer or shorter arguments (a file can carry long input).",
    )


def _utf8(value: object, what: str) -> bytes:
    if not isinstance(value, str) or not value or "\0" in value:
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            f"The {what} must be a non-empty string without NUL characters.",
            rejected_value=value if isinstance(value, str) and len(value) <= 200 else None,
        )
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError:
        raise OracleError(ErrorCode.INVALID_ARGUMENT, f"The {what} is not valid UTF-8.") from None


def check_start(executable: str, args: Sequence[str], cwd: str | None) -> list[str]:
    """The argv to run, or the refusal: 128 items, 8,000 bytes each, 64 KiB in all; the
    executable and cwd at most 8,000 bytes; cwd an existing directory."""
    if len(args) + 1 > ARGV_ITEMS:
        raise _too_large(
            f"At most {ARGV_ITEMS} argv items (executable included); got {len(args) + 1}.",
            items=len(args) + 1,
            limit=ARGV_ITEMS,
        )
    argv = [executable, *args]
    sizes = [
        len(_utf8(item, "executable" if n == 0 else f"argument {n}")) for n, item in enumerate(argv)
    ]
    for n, size in enumerate(sizes):
        limit = PATH_BYTES if n == 0 else ARG_ITEM_BYTES
        if size > limit:
            raise _too_large(
                f"argv item {n} is {size} bytes (at most {limit}).",
                index=n,
                bytes=size,
                limit=limit,
            )
    if sum(sizes) > ARGV_TOTAL_BYTES:
        raise _too_large(
            f"argv is {sum(sizes)} bytes in all (at most {ARGV_TOTAL_BYTES}).",
            bytes=sum(sizes),
            limit=ARGV_TOTAL_BYTES,
        )
    if cwd is not None:
        if len(_utf8(cwd, "cwd")) > PATH_BYTES:
            raise _too_large(f"cwd is longer than {PATH_BYTES} bytes.", limit=PATH_BYTES)
        if not os.path.isdir(cwd):
            raise OracleError(
                ErrorCode.INVALID_ARGUMENT,
                "cwd is not an existing directory.",
                rejected_value=cwd[:200],
            )
    return argv


# What a shell would read as more than one word or as syntax: never part of a program's name.
_SHELL_SYNTAX = re.compile(r"[\s|&;<>()$`*?]")


def runnable(executable: str, cwd: str | None = None) -> bool:
    """Whether ``executable`` names a program that exists now: a path (relative to ``cwd``)
    to an executable file, or a bare name found on PATH."""
    if "/" in executable:
        path = os.path.join(cwd or os.getcwd(), executable)
        return os.path.isfile(path) and os.access(path, os.X_OK)
    return shutil.which(executable) is not None


def shell_hint(executable: str) -> str | None:
    """For an "executable" that is really a shell command line: how to run it (argv is run
    without a shell, so it never is one)."""
    if not _SHELL_SYNTAX.search(executable):
        return None
    return (
        "Commands run as an argv, without a shell: to run a command line, pass "
        f"`bash -c {shlex.quote(executable)}`."
    )
