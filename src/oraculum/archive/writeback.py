"""Writing an archive back to disk while it is still being built.

A durable archive ends with an fsync. Left to the end, that fsync waits for every byte of the
file to reach the disk, after the compression has finished: tens of megabytes written back while
nothing else happens. :class:`WritebackFile` instead asks a helper thread to ``fdatasync`` the
file every few megabytes as it grows, so the disk writes while the compressor works and the
final fsync has only the tail left.
"""

from __future__ import annotations

import os
import threading
from typing import BinaryIO

__all__ = ["WRITEBACK_STEP", "WritebackFile"]

# Big enough that the syncs are few (each is a journal commit), small enough that the tail
# left for the final fsync is short.
WRITEBACK_STEP = 8 << 20


class WritebackFile:
    """Forwards ``write`` and ``flush`` to ``raw``; every ``step`` bytes it wakes a helper
    thread that fdatasyncs what has reached the kernel so far.

    :meth:`close` (always call it, before ``raw`` is closed) stops and joins the helper and
    raises the first error a sync met: the kernel reports a writeback error to one sync of an
    open file only, so one swallowed here would be lost to the final fsync too.
    """

    def __init__(self, raw: BinaryIO, step: int = WRITEBACK_STEP) -> None:
        self.raw = raw
        self._fd = raw.fileno()
        self._step = step
        self._unsynced = 0
        self._requested = False
        self._wake = threading.Event()
        self._stopping = False
        self._error: OSError | None = None
        self._thread = threading.Thread(target=self._run, name="archive-writeback", daemon=True)
        self._thread.start()

    def write(self, data: bytes | memoryview) -> int:
        written = self.raw.write(data)
        self._unsynced += len(data)
        if self._unsynced >= self._step:
            self._unsynced = 0
            self._requested = True
            self._wake.set()
        return written

    def flush(self) -> None:
        self.raw.flush()

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._requested:  # a request made just before close() is still served
                self._requested = False
                try:
                    os.fdatasync(self._fd)
                except OSError as exc:
                    self._error = exc
                    return
            if self._stopping:
                return

    def close(self) -> None:
        self._stopping = True
        self._wake.set()
        self._thread.join()
        if self._error is not None:
            raise self._error
