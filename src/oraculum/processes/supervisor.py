"""The per-session supervisor: the owner of processes started from the CLI.

`oraculum proc start` returns at once, so its processes need an owner that outlives the
command. The first `proc start` of a session starts this small detached process
(``python -m oraculum.processes.supervisor <project id> <session id>``, its own session, stdin
closed); later commands of the session talk to it over a Unix socket in the state dir
(``<state>/processes/<digest>.sock``, directory 0700, socket 0600: only this user), one JSON
line each way. It holds a ProcessManager and a flock, so each session has at most one.

It records each process durably (:mod:`oraculum.processes.journal`), so that after it was
SIGKILLed the next supervisor of the session adopts what still runs (`proc list` and `proc
shutdown` start one when the journal names a live process). It is a child subreaper on Linux:
a descendant that double-forks out of its group (``setsid -f``) becomes its child, is found
by its mark, reported and stopped with its process, and reaped here.

It stops every process it owns, verified, and exits when the session ends
(`oraculum proc shutdown`, which the pi bridge runs at session shutdown), on SIGTERM or
SIGINT, or after ``ORACULUM_PROC_IDLE_S`` seconds (default 600) with nothing running and no
request. Its processes inherit the environment of the command that started it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import socketserver
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.fsio import FILE_MODE, ensure_private_dir
from oraculum.core.paths import state_dir
from oraculum.core.session import validate_session_id
from oraculum.jobs.locks import lock_path, try_flock
from oraculum.jobs.reconcile import ReconcileThread
from oraculum.processes import limits, lineage
from oraculum.processes.journal import Journal
from oraculum.processes.manager import ProcessManager

__all__ = [
    "IDLE_ENV",
    "SupervisorServer",
    "handle",
    "journal",
    "main",
    "socket_dir",
    "socket_name",
]

IDLE_ENV = "ORACULUM_PROC_IDLE_S"
_DEFAULT_IDLE_S = 600.0
_LOCK_KIND = "proc-supervisor"
MAX_REQUEST_BYTES = 256 * 1024  # an argv is at most 64 KiB; JSON escaping may double it


def session_key(project_id: str, session_id: str) -> str:
    return f"{project_id}::{validate_session_id(session_id)}"


def socket_dir() -> Path:
    return state_dir() / "processes"


def _digest(project_id: str, session_id: str) -> str:
    return hashlib.sha256(session_key(project_id, session_id).encode()).hexdigest()[:24]


def socket_name(project_id: str, session_id: str) -> str:
    return f"{_digest(project_id, session_id)}.sock"


def journal(project_id: str, session_id: str) -> Journal:
    """The session's durable record of its processes."""
    return Journal(socket_dir() / f"{_digest(project_id, session_id)}.journal.json")


@contextlib.contextmanager
def short_path(directory: Path, name: str) -> Iterator[str]:
    """A path to ``directory/name`` short enough for AF_UNIX (108 bytes), however deep the
    state dir: through an open descriptor of the directory (``/proc/self/fd/N/name``)."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        yield f"/proc/self/fd/{fd}/{name}"
    finally:
        os.close(fd)


def handle(manager: ProcessManager, request: dict[str, Any]) -> dict[str, Any]:
    """One request's answer: ``{"ok": true, "result"}`` or ``{"ok": false, "error"}``."""
    try:
        op = request.get("op")
        if op == "start":
            result: Any = manager.start(
                request["executable"], list(request.get("args") or []), request.get("cwd")
            )
        elif op == "list":
            result = manager.list_records()
        elif op == "output":
            result = manager.output(
                request["id"], int(request.get("maxBytes", limits.OUTPUT_CALL_BYTES))
            )
        elif op == "stop":
            result = manager.stop(request["id"])
        elif op == "shutdown":
            result = manager.stop_all(reason="session_shutdown")
        else:
            raise OracleError(ErrorCode.INVALID_ARGUMENT, f"Unknown supervisor request {op!r:.40}.")
        return {"ok": True, "result": result}
    except OracleError as error:
        return {"ok": False, "error": error.to_dict()}
    except (KeyError, TypeError, ValueError) as exc:
        problem = OracleError(
            ErrorCode.INVALID_ARGUMENT, f"Malformed supervisor request: {exc!s:.200}"
        )
        return {"ok": False, "error": problem.to_dict()}


class _Handler(socketserver.StreamRequestHandler):
    server: SupervisorServer

    def handle(self) -> None:
        line = self.rfile.readline(MAX_REQUEST_BYTES + 1)
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise ValueError("not an object")
        except ValueError:
            request = {"op": None}
        self.server.touch()
        answer = handle(self.server.manager, request)
        self.wfile.write(json.dumps(answer).encode() + b"\n")
        if request.get("op") == "shutdown":
            self.server.closing.set()


class SupervisorServer(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True

    def __init__(self, address: str, manager: ProcessManager) -> None:
        super().__init__(address, _Handler)
        self.manager = manager
        self.closing = threading.Event()
        self.last_request = time.monotonic()

    def touch(self) -> None:
        self.last_request = time.monotonic()

    def idle_for(self) -> float:
        running = any(
            r["state"] not in ("exited", "signaled", "start_failed", "cleanup_failed")
            for r in self.manager.list_records()
        )
        return 0.0 if running else time.monotonic() - self.last_request


def _idle_limit() -> float:
    try:
        value = float(os.environ.get(IDLE_ENV, ""))
    except ValueError:
        return _DEFAULT_IDLE_S
    return value if value > 0 else _DEFAULT_IDLE_S


def _serve(server: SupervisorServer) -> None:
    thread = threading.Thread(target=server.serve_forever, args=(0.1,), daemon=True)
    thread.start()
    limit = _idle_limit()
    while not server.closing.wait(0.2):
        lineage.reap_orphans()  # the orphans it inherited as a subreaper
        if server.idle_for() >= limit:
            break
    server.shutdown()
    thread.join(5)


def run(project_id: str, session_id: str) -> int:
    """Serve the session until it ends; 0 also when another supervisor already serves it."""
    directory = ensure_private_dir(socket_dir())
    held = lock_path(_LOCK_KIND, session_key(project_id, session_id))
    ensure_private_dir(held.parent)
    lock_fd = os.open(held, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)
    if not try_flock(lock_fd):
        return 0  # this session already has its supervisor
    lineage.become_subreaper()
    manager = ProcessManager(journal=journal(project_id, session_id))
    manager.adopt()  # what a killed predecessor left running
    name = socket_name(project_id, session_id)
    old_umask = os.umask(0o177)  # the socket is 0600 from birth
    try:
        with short_path(directory, name) as address:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(address)  # a dead supervisor's socket (we hold the lock now)
            server = SupervisorServer(address, manager)
    finally:
        os.umask(old_umask)

    def stop(*_: object) -> None:
        server.closing.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    reconciler = ReconcileThread()  # a long-lived oraculum process ends dead workers' jobs
    reconciler.start()
    try:
        _serve(server)
    finally:
        reconciler.stop()
        manager.stop_all(reason="session_shutdown")
        server.server_close()
        with contextlib.suppress(FileNotFoundError):
            (directory / name).unlink()
        os.close(lock_fd)
    return 0


def main() -> int:
    project_id, session_id = sys.argv[1], sys.argv[2]
    return run(project_id, session_id)


if __name__ == "__main__":
    sys.exit(main())
