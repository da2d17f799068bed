"""Waking the runner early: a FIFO, ``<state>/scheduler/doorbell``.

The runner sleeps until its next fire time on the FIFO's read end. ``submit`` and ``cancel``
ring it (one byte, never blocking), and so do the runner's own payload threads as they end and
its signal handlers, so the runner re-reads the store at once instead of polling it. With no
runner there is no reader, the open fails with ``ENXIO`` and ringing does nothing.
"""

from __future__ import annotations

import contextlib
import os
import select
import stat
from pathlib import Path

from oraculum.core.fsio import FILE_MODE, close_quietly, ensure_private_dir
from oraculum.scheduler.store import scheduler_dir

__all__ = ["Doorbell", "doorbell_path", "ring"]

_WRITE = os.O_WRONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
_READ = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC


def doorbell_path() -> Path:
    return scheduler_dir() / "doorbell"


def _ring_fd(fd: int) -> None:
    with contextlib.suppress(BlockingIOError):  # full: a ring is pending already
        os.write(fd, b"\0")


def ring(path: Path | None = None) -> bool:
    """Wake the runner if one listens; True if it was rung. Never blocks, never raises."""
    try:
        fd = os.open(path or doorbell_path(), _WRITE)
    except OSError:  # no runner (ENXIO), no doorbell yet, or not a FIFO (ELOOP): nobody to wake
        return False
    try:
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return False
        _ring_fd(fd)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def _make_fifo(path: Path) -> None:
    ensure_private_dir(path.parent)
    with contextlib.suppress(FileNotFoundError):
        if not stat.S_ISFIFO(os.lstat(path).st_mode):
            path.unlink()  # something else took the name: the doorbell is ours to make
    with contextlib.suppress(FileExistsError):
        os.mkfifo(path, FILE_MODE)


class Doorbell:
    """The runner's end: it holds both ends, so a ring from inside (a payload thread, a signal
    handler) needs no open, and the read end never sees end-of-file."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or doorbell_path()
        _make_fifo(self.path)
        self._reader = os.open(self.path, _READ)
        try:
            self._writer = os.open(self.path, _WRITE)
        except OSError:
            os.close(self._reader)
            raise

    def ring(self) -> None:
        """Safe from any thread and from a signal handler."""
        with contextlib.suppress(OSError):
            _ring_fd(self._writer)

    def wait(self, timeout_s: float) -> bool:
        """Sleep until rung or ``timeout_s`` passes; True if rung (every ring so far is used)."""
        readable, _, _ = select.select([self._reader], [], [], max(0.0, timeout_s))
        if not readable:
            return False
        with contextlib.suppress(BlockingIOError):
            while os.read(self._reader, 4096):
                pass
        return True

    def close(self) -> None:
        close_quietly(self._reader, self._writer)
