"""A helper run to its end: its input fed, its output kept bounded, its group stopped at a
deadline or on cancel.

codex_search, a wake-up hook and ``notify-send`` run a short-lived helper this way: started with
:func:`~oraculum.core.process_group.spawn_group`, its stdin written on a thread of its own and
closed (a helper that exits without reading it all is not an error; its exit status says why),
stdout and stderr drained into :class:`~oraculum.processes.tail.Tail` buffers, and, when it
outlives its deadline, is cancelled, or the waiting caller is interrupted (Ctrl-C), stopped
with :func:`~oraculum.core.process_group.end_group` so nothing it started outlives it.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from oraculum.core.process_group import end_group, spawn_group
from oraculum.processes.tail import Tail, read_into

__all__ = ["Finished", "run_group", "run_helper"]

_POLL_S = 0.05
_VERIFY_S = 5.0
_READ_JOIN_S = 5.0
_HELPER_STDERR_BYTES = 4_000
_HELPER_GRACE_S = 1.0


@dataclass(frozen=True)
class Finished:
    ended: str  # "exited", "cancelled" or "timeout"
    returncode: int | None


def _feed(stdin: IO[bytes], data: bytes) -> None:
    try:
        with stdin:
            stdin.write(data)
    except (BrokenPipeError, OSError):
        pass  # the helper exited without reading it all; its exit status says why


def _wait(process: subprocess.Popen[bytes], cancel: threading.Event, deadline: float) -> str:
    while process.poll() is None:
        if cancel.wait(_POLL_S):
            return "cancelled"
        if time.monotonic() >= deadline:
            return "timeout"
    return "exited"


def run_group(
    argv: Sequence[str],
    *,
    stdin: bytes | None,
    stdout: Tail | None,
    stderr: Tail,
    timeout_s: float,
    grace_s: float,
    cancel: threading.Event | None = None,
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    on_start: Callable[[int], None] | None = None,
) -> Finished:
    """Run ``argv`` to its end, ``timeout_s`` or ``cancel``; ``stdin`` None is /dev/null and
    ``stdout`` None discards it. OSError when it cannot start."""
    process = spawn_group(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
        stdout=subprocess.DEVNULL if stdout is None else subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stderr is not None  # PIPE above
    if on_start is not None:
        on_start(process.pid)
    readers = [read_into(process.stderr, stderr)]
    if stdout is not None and process.stdout is not None:
        readers.append(read_into(process.stdout, stdout))
    if stdin is not None and process.stdin is not None:
        threading.Thread(target=_feed, args=(process.stdin, stdin), daemon=True).start()

    def stop() -> None:
        end_group(
            process.pid, lambda: process.poll() is not None, grace_s=grace_s, verify_s=_VERIFY_S
        )

    try:
        ended = _wait(process, cancel or threading.Event(), time.monotonic() + timeout_s)
    except BaseException:  # Ctrl-C in the CLI: the helper's group must not outlive us
        stop()
        raise
    if ended != "exited":
        stop()
    for reader in readers:
        reader.join(_READ_JOIN_S)
    return Finished(ended, process.returncode)


def run_helper(
    name: str,
    argv: Sequence[str],
    *,
    stdin: bytes | None,
    timeout_s: float,
    env: Mapping[str, str] | None = None,
) -> tuple[int | None, str | None]:
    """A best-effort helper run to its end, its stdout discarded: (its exit status, None when
    it exited 0, else what went wrong in words, its stderr's end included). The status is
    None when it did not start or timed out."""
    stderr = Tail(_HELPER_STDERR_BYTES)
    try:
        run = run_group(
            argv,
            stdin=stdin,
            stdout=None,
            stderr=stderr,
            env=env,
            timeout_s=timeout_s,
            grace_s=_HELPER_GRACE_S,
        )
    except OSError as exc:
        return None, f"{name} could not start: {exc.strerror or exc}"
    if run.ended == "timeout":
        return None, f"{name} timed out after {timeout_s:g}s"
    if run.returncode == 0:
        return 0, None
    tail = stderr.snapshot(_HELPER_STDERR_BYTES).text.strip()[-300:]
    return run.returncode, f"{name} exited with {run.returncode}" + (f": {tail}" if tail else "")
