"""Named locks on kernel file locks (`flock`).

The kernel drops a lock the moment its holder dies, so there is nothing to sweep and no lock
is ever stale. Lock files are never deleted: deleting one would let two holders lock two
different inodes under the same name.

``flock`` has no fairness: a process that releases and at once asks again usually wins over
those already waiting, so under steady contention a waiter can starve for seconds. A *fair*
lock (``named_lock(..., fair=True)``) puts a queue in front of the same kernel lock: each
waiter takes a ticket, holds a lock on its own ticket file until it is done, and waits only for
the ticket before its own to be released, so waiters enter in ticket order. Mutual exclusion
still comes from the one kernel lock on the lock file alone; the queue only orders who asks
for it, so a waiter that dies in the queue costs its successor nothing but its place.

Ticket files are reused, not deleted: making a file's inode is the slow part of making a file,
and on an ext4 without a journal every new inode skips past those freed in the last ~30 s, so
a queue that made and deleted a file per ticket, hundreds a second, made each new one slower
(0.03 ms to 0.6 ms on this project's benchmark machine). A ticket's file stays named when its
holder is done; its successor, the only one that looks at it, renames it ``spare-<ticket>``
once it holds it, and a new ticket takes a spare nobody holds before it makes a file.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.fsio import FILE_MODE, close_quietly, ensure_private_dir, name_file, unnamed_file
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


def _timeout_error(kind: str, key: str) -> OracleError:
    return OracleError(
        ErrorCode.LOCK_TIMEOUT,
        f"Timed out waiting for oracle {kind} lock: {key}",
        retryable=True,
        suggested_next_step="Another oraculum process holds it; retry shortly.",
    )


def _poll_flock(fd: int, *, shared: bool, deadline: float) -> bool:
    """Poll for the lock with backoff until ``deadline``; whether it was taken."""
    delay = _POLL_START_S
    while not try_flock(fd, shared=shared):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        time.sleep(min(delay, remaining))
        delay = min(delay * 2, _POLL_MAX_S)
    return True


@contextmanager
def named_lock(
    kind: str,
    key: str = "global",
    *,
    timeout: float = 30.0,
    shared: bool = False,
    root: Path | None = None,
    fair: bool = False,
) -> Iterator[None]:
    """Hold the ``kind``/``key`` lock for the ``with`` block.

    With ``fair`` (exclusive only) waiters enter in the order they asked (see the module
    docstring); fair and plain holders of the same name still exclude each other.
    Raises ``lock_timeout`` (retryable) when the lock stays held for ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    if fair and not shared:
        with _fair_lock(kind, key, root, deadline):
            yield
        return
    fd = _open_lock_file(lock_path(kind, key, root))
    try:
        if not _poll_flock(fd, shared=shared, deadline=deadline):
            raise _timeout_error(kind, key)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock


# The fair lock ------------------------------------------------------------------------------


def _wait_flock(fd: int, *, shared: bool, deadline: float) -> bool:
    """Block in the kernel for the lock until ``deadline`` (woken the moment it is free, unlike
    polling); whether it was taken.

    ``flock`` cannot time out, so a helper thread blocks on a duplicate of the descriptor (the
    lock belongs to the open file both share). If the deadline passes first, the caller closes
    its descriptor and the helper's lock, when it finally comes, goes when the helper closes
    the duplicate.
    """
    if try_flock(fd, shared=shared):
        return True
    dup = os.dup(fd)
    taken = threading.Event()

    def block() -> None:
        try:
            fcntl.flock(dup, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
            taken.set()
        finally:
            os.close(dup)

    threading.Thread(target=block, name="flock-wait", daemon=True).start()
    return taken.wait(max(0.0, deadline - time.monotonic()))


def _queue_dir(kind: str, key: str, root: Path | None) -> Path:
    main = lock_path(kind, key, root)
    return ensure_private_dir(main.with_name(main.stem + ".queue"))


_SPARE = "spare-"
# A ticket's file released this many tickets behind the newest lost the successor that would
# have made it a spare.
_STALE_BEHIND = 16


def _ticket_name(queue: Path, ticket: int) -> Path:
    return queue / f"{ticket:020d}"


def _spare_file(queue: Path) -> tuple[int, Path] | None:
    """A spare ticket file locked by us, with its spare name: (fd, path); None when every
    spare is held (its recycler is closing it) or there is none. Ticket files long released
    but never made spares (their successor died waiting) are removed on the way."""
    spares: list[str] = []
    tickets: list[int] = []
    try:
        with os.scandir(queue) as entries:
            for entry in entries:
                if entry.name.startswith(_SPARE):
                    spares.append(entry.name)
                elif entry.name.isdigit():
                    tickets.append(int(entry.name))
    except OSError:
        return None
    if tickets:
        newest = max(tickets)
        for ticket in tickets:
            if ticket < newest - _STALE_BEHIND:
                _remove_if_released(_ticket_name(queue, ticket))
    for name in spares:
        path = queue / name
        try:
            fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:  # taken meanwhile
            continue
        if try_flock(fd):
            if os.fstat(fd).st_nlink == 1:
                return fd, path
            # Named as a ticket too: its taker died between naming it and dropping this name.
            with contextlib.suppress(OSError):
                path.unlink()
        os.close(fd)
    return None


def _remove_if_released(path: Path) -> None:
    """Remove a ticket file nobody holds: its holder is done or dead, so a waiter behind it
    that finds it gone passes, as it would have."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if try_flock(fd, shared=True):
            path.unlink(missing_ok=True)
    finally:
        os.close(fd)


def _new_ticket_file(queue: Path) -> tuple[int | None, Path | None]:
    """The locked descriptor of a file for the next ticket, not yet named as one, and the
    spare name it has, if it is a spare: (fd, spare name). A spare first, else a nameless
    file; (None, None) when neither can be had (the ticket's file is then made by name)."""
    spare = _spare_file(queue)
    if spare is not None:
        return spare
    blank = unnamed_file(queue)
    if blank is not None:
        try_flock(blank)  # a new file: nobody else can hold it
    return blank, None


def _take_ticket(queue: Path, deadline: float) -> tuple[int, int]:
    """The next ticket and the descriptor of its file, locked: (ticket, fd).

    The counter is read and advanced under a lock of its own, held for a few system calls:
    the ticket's file is had (and locked) before it, a spare or nameless, and only named
    under it (see :func:`~oraculum.core.fsio.unnamed_file`). The new ticket's file is locked
    before the counter moves on, so the next waiter always finds it held.
    """
    blank, spare_name = _new_ticket_file(queue)
    node: int | None = None
    counter = _open_lock_file(queue / "counter")
    try:
        if not _wait_flock(counter, shared=False, deadline=deadline):
            raise TimeoutError
        raw = os.pread(counter, 32, 0)
        ticket = int(raw) if raw.strip().isdigit() else 0
        # A ticket's file held already: the counter was lost and restarted; skip past it.
        while (node := _claim_ticket(_ticket_name(queue, ticket), blank)) is None:
            ticket += 1
        data = b"%d" % (ticket + 1)
        os.pwrite(counter, data, 0)
        os.ftruncate(counter, len(data))
    except BaseException:
        close_quietly(node)
        raise
    finally:
        os.close(counter)  # releases the counter lock
        if blank is not None and blank != node:
            close_quietly(blank)  # unused: a spare stays one, a nameless file is freed
    if spare_name is not None and node == blank:
        with contextlib.suppress(OSError):  # named as the ticket now: one name goes
            spare_name.unlink()
    return ticket, node


def _claim_ticket(path: Path, blank: int | None) -> int | None:
    """The locked descriptor of the ticket file ``path``: ``blank`` given that name, or the
    file already there when nobody holds it (its waiter died); None when it is held."""
    if blank is not None:
        with contextlib.suppress(OSError):  # taken, or not linkable here: by name, below
            name_file(blank, path)
            return blank
    fd = _open_lock_file(path)
    if try_flock(fd):
        return fd
    os.close(fd)
    return None


def _wait_for_predecessor(queue: Path, ticket: int, deadline: float) -> bool:
    """Wait until the ticket before ``ticket`` is released (or its holder is gone), then
    make its file a spare; on a timeout, drop its name (nobody else would look at it)."""
    if ticket == 0:
        return True
    before = _ticket_name(queue, ticket - 1)
    try:
        fd = os.open(before, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:  # released already
        return True
    try:
        if not _wait_flock(fd, shared=True, deadline=deadline):
            with contextlib.suppress(OSError):
                before.unlink()
            return False
        # Its holder is done (or died): only this waiter ever looks at it. Held by us until
        # closed, it cannot be taken as a spare before we are done with it.
        with contextlib.suppress(OSError):
            os.rename(before, queue / f"{_SPARE}{ticket - 1:020d}")
        return True
    finally:
        os.close(fd)


@contextmanager
def _fair_lock(kind: str, key: str, root: Path | None, deadline: float) -> Iterator[None]:
    queue = _queue_dir(kind, key, root)
    try:
        ticket, node = _take_ticket(queue, deadline)
    except TimeoutError:
        raise _timeout_error(kind, key) from None
    try:
        if not _wait_for_predecessor(queue, ticket, deadline):
            raise _timeout_error(kind, key)
        fd = _open_lock_file(lock_path(kind, key, root))
        try:
            if not _wait_flock(fd, shared=False, deadline=deadline):
                raise _timeout_error(kind, key)
            yield
        finally:
            os.close(fd)  # the lock itself goes first, then the ticket that wakes the next
    finally:
        os.close(node)  # its file stays named: the next ticket's waiter makes it a spare


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
