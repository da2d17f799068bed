"""Helpers for the managed-process tests: small Python children and bounded waits."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable

import psutil

from oraculum.processes.manager import ProcessManager

PY = sys.executable
DEADLINE_S = 15.0


def until(check: Callable[[], bool], what: str, seconds: float = DEADLINE_S) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.02)


def started(manager: ProcessManager, code: str) -> dict:
    """Start ``python -c code`` and wait until it printed its first line."""
    record = manager.start(PY, ["-u", "-c", code])
    until(lambda: "\n" in manager.output(record["id"])["stdout"], "the child's first line")
    return record


def first_line(manager: ProcessManager, process_id: str) -> str:
    return manager.output(process_id)["stdout"].splitlines()[0]


def alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def kill_escapee(pid: int) -> None:
    """Tests clean up what the manager (by design) leaves: a setsid escapee."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
