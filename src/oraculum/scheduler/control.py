"""Starting and finding the runner: its singleton lock, the submit lock and the pending marker.

The marker ``<state>/scheduler/pending`` exists while the store may hold work (a submit writes
it; the runner removes it as it exits idle, both under the submit lock). Any oraculum command
looks at it (:mod:`oraculum.scheduler.hook`) and starts a runner when it exists and none lives.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from oraculum.core.fsio import FILE_MODE, atomic_write_bytes, ensure_private_dir
from oraculum.jobs.locks import is_locked, lock_path, try_flock
from oraculum.scheduler.store import scheduler_dir

__all__ = [
    "GRACE_ENV",
    "RUNNER_LOCK",
    "SUBMIT_LOCK",
    "TIMEOUT_ENV",
    "clear_pending",
    "ensure_runner",
    "grace_s",
    "mark_pending",
    "pending_path",
    "record_runner_pid",
    "runner_alive",
    "runner_lock",
    "runner_pid_path",
    "timeout_s",
]

RUNNER_LOCK = "scheduler-runner"
SUBMIT_LOCK = "scheduler-submit"
GRACE_ENV = "ORACULUM_SCHEDULER_GRACE_S"
TIMEOUT_ENV = "ORACULUM_SCHEDULER_TIMEOUT_S"
DEFAULT_GRACE_S = 60  # an occurrence starting later than this after its time is missed
DEFAULT_TIMEOUT_S = 3600.0  # a payload still running after this is stopped
# A runner started while the previous one is exiting waits this long for the lock.
_TAKEOVER_WAIT_S = 3.0


def _env_number(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, ""))
    except ValueError:
        return default
    return value if value > 0 else default


def grace_s() -> int:
    return max(1, int(_env_number(GRACE_ENV, DEFAULT_GRACE_S)))


def timeout_s() -> float:
    return _env_number(TIMEOUT_ENV, DEFAULT_TIMEOUT_S)


def pending_path() -> Path:
    return scheduler_dir() / "pending"


def mark_pending() -> None:
    path = pending_path()
    ensure_private_dir(path.parent)
    atomic_write_bytes(path, b"")


def clear_pending() -> None:
    with suppress(FileNotFoundError):
        pending_path().unlink()


def runner_pid_path() -> Path:
    return scheduler_dir() / "runner.pid"


def record_runner_pid() -> None:
    """Who holds the runner lock (for people and tests; the lock is the truth)."""
    atomic_write_bytes(runner_pid_path(), f"{os.getpid()}\n".encode())


def runner_alive() -> bool:
    return is_locked(RUNNER_LOCK)


@contextmanager
def runner_lock() -> Iterator[Callable[[], None] | None]:
    """Hold the runner's singleton lock for the block; yields None when another runner has it
    (after a short wait, in case that one is exiting), else a function that lets it go early
    (the runner does, under the submit lock, as it decides to exit)."""
    path = lock_path(RUNNER_LOCK, "global")
    ensure_private_dir(path.parent)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)
    released = False

    def release() -> None:
        nonlocal released
        if not released:
            released = True
            os.close(fd)  # the kernel releases the flock with the descriptor

    try:
        deadline = time.monotonic() + _TAKEOVER_WAIT_S
        held = try_flock(fd)
        while not held and time.monotonic() < deadline:
            time.sleep(0.05)
            held = try_flock(fd)
        yield release if held else None
    finally:
        release()


def ensure_runner() -> bool:
    """Start a detached runner unless one lives; True if one was started."""
    if runner_alive():
        return False
    from oraculum.jobs.process import spawn_worker

    spawn_worker(["run"], log_path=scheduler_dir() / "runner.log", module="oraculum.scheduler")
    return True
