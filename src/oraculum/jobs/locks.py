"""Named locks on kernel file locks (`flock`).

The kernel drops a lock the moment its holder dies, so there is nothing to sweep and no lock
is ever stale. Lock files are never deleted: deleting one would let two holders lock two
different inodes under the same name.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from oraculum.core.errors import OracleError
from oraculum.core.fsio import FILE_MODE, ensure_private_dir
from oraculum.core.paths import state_dir

# Held by a `recollect` worker for its whole run: one recollection per job, and clean/prune wait.
RECOLLECT_LOCK = "recollect"

_POLL_START_S = 0.002
_POLL_MAX_S = 0.02


def lock_path(kind: str, key: str, root: Path | None = None) -> Path:
    digest = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return (root or state_dir()) / "locks" / f"{kind}-{digest}.lock"


def _open_lock_file(path: Path) -> int:
    ensure_private_dir(path.parent)
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)


def try_flock(fd: int, *, shared: bool = False) -> bool:
    try:
        fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


@contextmanager
def named_lock(
    kind: str,
    key: str = "global",
    *,
    timeout: float = 30.0,
    shared: bool = False,
    root: Path | None = None,
) -> Iterator[None]:
    """Hold the ``kind``/``key`` lock for the ``with`` block.

    Raises ``lock_timeout`` (retryable) when the lock stays held for ``timeout`` seconds.
    """
    fd = _open_lock_file(lock_path(kind, key, root))
    try:
        deadline = time.monotonic() + timeout
        delay = _POLL_START_S
        while not try_flock(fd, shared=shared):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise OracleError(
                    "lock_timeout",
                    f"Timed out waiting for oracle {kind} lock: {key}",
                    retryable=True,
                    suggested_next_step="Another oraculum process holds it; retry shortly.",
                )
            time.sleep(min(delay, remaining))
            delay = min(delay * 2, _POLL_MAX_S)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock


def is_locked(kind: str, key: str = "global", *, root: Path | None = None) -> bool:
    """Whether someone holds the lock right now (probes without keeping it)."""
    path = lock_path(kind, key, root)
    if not path.exists():
        return False
    fd = _open_lock_file(path)
    try:
        return not try_flock(fd, shared=True)
    finally:
        os.close(fd)
