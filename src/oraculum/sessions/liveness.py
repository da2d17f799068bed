"""Session liveness: a flock'd file per live host process of a session.

A host process (the MCP server, `oraculum wait`, a bridge) holds an exclusive flock on its own
file in `<state>/sessions/` for as long as it serves the session. The kernel drops the lock
when the process dies, so "is this session live?" is "does any of its files stay locked?" —
never a pid check, never a heartbeat that can go stale.

Files are published by rename *after* the lock is taken: a scanner can therefore never see an
unlocked file of a process that is still starting, and a file it finds unlocked belongs to a
dead process and may be deleted.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from oraculum.core.fsio import FILE_MODE, ensure_private_dir
from oraculum.core.paths import state_dir
from oraculum.jobs.model import iso, utc_now

_SUFFIX = ".live"


def _sessions_dir(root: Path | None = None) -> Path:
    return (root or state_dir()) / "sessions"


def session_key(project_id: str, session_id: str) -> str:
    return f"{project_id}::{session_id}"


def _key_digest(project_id: str, session_id: str) -> str:
    return hashlib.sha256(session_key(project_id, session_id).encode()).hexdigest()[:24]


@dataclass(frozen=True)
class LiveSession:
    project_id: str
    session_id: str
    pid: int

    @property
    def key(self) -> str:
        return session_key(self.project_id, self.session_id)


class SessionLiveness:
    """Hold this process's liveness file for ``(project_id, session_id)`` until :meth:`close`."""

    def __init__(self, project_id: str, session_id: str, *, root: Path | None = None) -> None:
        self.project_id = project_id
        self.session_id = session_id
        directory = ensure_private_dir(_sessions_dir(root))
        name = f"{_key_digest(project_id, session_id)}.{os.getpid()}.{secrets.token_hex(4)}"
        self.path = directory / f"{name}{_SUFFIX}"
        tmp = directory / f".{name}.tmp"
        fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, FILE_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            meta = {
                "projectId": project_id,
                "sessionId": session_id,
                "pid": os.getpid(),
                "startedAt": iso(utc_now()),
            }
            os.write(fd, json.dumps(meta).encode())
            os.replace(tmp, self.path)  # the inode, and so the lock, moves with the name
        except BaseException:
            os.close(fd)
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            raise
        self._fd: int | None = fd

    @property
    def key(self) -> str:
        return session_key(self.project_id, self.session_id)

    def close(self) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> SessionLiveness:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def _probe(path: Path) -> LiveSession | None:
    """The session a file announces while its holder lives; None (and the file gone) once dead."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            raw = os.pread(fd, 4096, 0)
            try:
                meta = json.loads(raw)
                return LiveSession(str(meta["projectId"]), str(meta["sessionId"]), int(meta["pid"]))
            except (ValueError, KeyError, TypeError):
                return None
        # Nobody holds it: its process is gone. Published files are always locked first.
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return None
    finally:
        os.close(fd)


def live_sessions(*, root: Path | None = None) -> list[LiveSession]:
    """Every live host process of every session (one entry per process)."""
    try:
        names = os.listdir(_sessions_dir(root))
    except FileNotFoundError:
        return []
    found = []
    for name in sorted(names):
        if name.endswith(_SUFFIX) and not name.startswith("."):
            live = _probe(_sessions_dir(root) / name)
            if live is not None:
                found.append(live)
    return found


def live_session_keys(*, root: Path | None = None) -> set[str]:
    return {live.key for live in live_sessions(root=root)}


def is_live(project_id: str, session_id: str, *, root: Path | None = None) -> bool:
    """Whether any process currently holds a liveness file for that session."""
    prefix = _key_digest(project_id, session_id) + "."
    try:
        names = os.listdir(_sessions_dir(root))
    except FileNotFoundError:
        return False
    return any(
        _probe(_sessions_dir(root) / name) is not None
        for name in names
        if name.startswith(prefix) and name.endswith(_SUFFIX)
    )
