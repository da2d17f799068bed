"""Private, crash-safe file writes: directories 0700, files 0600, replace by rename."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from oraculum.core.errors import ErrorCode, OracleError

DIR_MODE = 0o700
FILE_MODE = 0o600
# A full filesystem or an exhausted quota: freeing space and retrying fixes both.
DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
DISK_ERROR_CODES = (ErrorCode.DISK_FULL, ErrorCode.IO_ERROR)


def os_error(exc: OSError, path: Path | str | None = None, *, action: str = "write") -> OracleError:
    """The one mapping of an OSError to an OracleError: ``disk_full`` for ENOSPC/EDQUOT,
    ``io_error`` otherwise, naming the path (``exc.filename`` when ``path`` is not given: a
    failed ``write()`` carries no file name, so writers pass theirs)."""
    known = path if path is not None else exc.filename
    target = None if known is None else str(known)
    name = errno.errorcode.get(exc.errno or 0, str(exc.errno))
    reason = exc.strerror or str(exc)
    what = f"{action} {target}" if target else action
    place = target or "the jobs and state directories"
    details = {"path": target, "errno": name}
    if exc.errno in DISK_FULL_ERRNOS:
        return OracleError(
            ErrorCode.DISK_FULL,
            f"Disk full: cannot {what} ({reason}).",
            rejected_value=target,
            retryable=True,
            suggested_next_step=f"Free space on the filesystem holding {place} "
            "(`oraculum clean --expired` removes old jobs), then retry.",
            details=details,
        )
    return OracleError(
        ErrorCode.IO_ERROR,
        f"Cannot {what}: {reason} ({name}).",
        rejected_value=target,
        suggested_next_step=f"Check {place} and the filesystem holding it, then retry.",
        details=details,
    )


@contextlib.contextmanager
def os_errors(path: Path | str | None = None, *, action: str = "write") -> Iterator[None]:
    """Raise an OSError from inside the block as :func:`os_error`'s OracleError."""
    try:
        yield
    except OSError as exc:
        raise os_error(exc, path, action=action) from exc


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` and every missing parent as 0700; tighten ``path`` itself if it existed.

    ``mkdir(parents=True)`` gives the parents it makes the umask's mode (0755 as a rule), so
    each missing level is made here, top down. A parent that already existed is not ours and
    keeps its mode.
    """
    missing = []
    current = path
    while not current.exists() and current != current.parent:
        missing.append(current)
        current = current.parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory, DIR_MODE)
        except FileExistsError:
            if not directory.is_dir():
                raise
            continue  # made by a concurrent process: not ours to change
        if stat.S_IMODE(directory.stat().st_mode) != DIR_MODE:
            directory.chmod(DIR_MODE)  # an unusual umask took bits mkdir's mode asked for
    if not missing:
        if not path.is_dir():
            raise FileExistsError(errno.EEXIST, "exists and is not a directory", str(path))
        with contextlib.suppress(PermissionError):
            if stat.S_IMODE(path.stat().st_mode) != DIR_MODE:
                path.chmod(DIR_MODE)
    return path


def fsync_dir(directory: Path) -> None:
    """Make a rename or a new entry in ``directory`` survive a crash."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes, *, sync: bool = True) -> None:
    """Write ``data`` so that readers see either the old file or the whole new one.

    The temporary file sits next to the target (same filesystem), is fsynced before the rename,
    and the directory is fsynced after it so the rename survives a power loss. An OSError
    (a full disk, say) leaves the old file as it was and is raised as :func:`os_error`'s
    OracleError naming ``path``. ``sync=False`` leaves both fsyncs to the caller (who must
    make the write durable before relying on it, e.g. once a lock is released).
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    with os_errors(path):
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                if sync:
                    os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            # A half-written temp file must not keep the space a full disk needs back.
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            raise
        if sync:
            fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def json_bytes(value: Any) -> bytes:
    """How every JSON state file is written: indented UTF-8 with a final newline."""
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode()


def atomic_write_json(path: Path, value: Any, *, sync: bool = True) -> None:
    atomic_write_bytes(path, json_bytes(value), sync=sync)


def fsync_file(path: Path) -> None:
    """Make a file written without ``sync`` durable (its data and size)."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def unnamed_file(directory: Path) -> int | None:
    """An open 0600 file in ``directory`` that has no name yet (Linux's ``O_TMPFILE``), for
    :func:`name_file` to name later; None where the platform or the filesystem has no such
    files (the caller then creates its file by name).

    Making a file's inode is the slow part of creating it: ~0.3–1 ms on an ext4 that has
    recently freed many inodes, against ~20 µs to link a name to one. A critical section
    that must create files makes them before it and only names them inside it. A nameless
    file left unnamed (its process died first) is freed with its descriptor: nothing to sweep.
    """
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None:
        return None
    try:
        return os.open(directory, flag | os.O_RDWR | os.O_CLOEXEC, FILE_MODE)
    except OSError:  # no O_TMPFILE on this filesystem, or no such directory: make it by name
        return None


def name_file(fd: int, path: Path) -> None:
    """Give an :func:`unnamed_file` the name ``path`` (``FileExistsError`` when it is taken:
    a name is never replaced)."""
    # linkat(2) with AT_SYMLINK_FOLLOW, through the descriptor's /proc link: os.link uses
    # plain link(2), which links the /proc link itself (EXDEV), unless given a directory
    # descriptor. The kernel ignores that descriptor for an absolute path.
    os.link(f"/proc/self/fd/{fd}", path, src_dir_fd=fd, follow_symlinks=True)


def close_quietly(*fds: int | None) -> None:
    for fd in fds:
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)


def fill_private_file(path: Path, data: bytes) -> None:
    """Write ``data`` over the file :func:`write_private_file` made at ``path`` earlier (empty
    as a rule), so the write allocates no inode. A missing file is created as by
    :func:`write_private_file`; a symlink is refused."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        write_private_file(path, data)
        return
    except OSError as exc:
        raise os_error(exc, path) from exc
    with os_errors(path), os.fdopen(fd, "wb") as handle:
        handle.write(data)


def write_private_file(path: Path, data: bytes) -> None:
    """Create a new file exclusively with 0600 (``FileExistsError`` if it exists; any other
    OSError is :func:`os_error`'s OracleError, and the partial file is removed)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
    except FileExistsError:
        raise  # the caller's collision, not a filesystem fault
    except OSError as exc:
        raise os_error(exc, path) from exc
    try:
        with os_errors(path), os.fdopen(fd, "wb") as handle:
            handle.write(data)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        raise
