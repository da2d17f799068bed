"""Talking to a session's supervisor (:mod:`oraculum.processes.supervisor`) from the CLI:
one JSON line each way; `start` starts the supervisor when the session has none."""

from __future__ import annotations

import json
import socket
import sys
import time
from collections.abc import Sequence
from typing import Any

from oraculum.core.errors import ErrorCode, OracleError, error_code
from oraculum.core.fsio import ensure_private_dir
from oraculum.core.process_group import spawn_group
from oraculum.processes import limits, supervisor

__all__ = ["SupervisedManager", "request"]

_START_WAIT_S = 10.0
_REPLY_TIMEOUT_S = 30.0  # a stop waits its grace and verification, well under this


def _exchange(project_id: str, session_id: str, message: dict[str, Any]) -> dict[str, Any]:
    name = supervisor.socket_name(project_id, session_id)
    directory = ensure_private_dir(supervisor.socket_dir())
    with (
        supervisor.short_path(directory, name) as address,
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn,
    ):
        conn.settimeout(_REPLY_TIMEOUT_S)
        conn.connect(address)
        conn.sendall(json.dumps(message).encode() + b"\n")
        reply = conn.makefile("rb").readline()
    if not reply:
        raise ConnectionResetError("the supervisor closed the connection")
    answer: dict[str, Any] = json.loads(reply)
    return answer


def _spawn(project_id: str, session_id: str) -> None:
    """Start the session's supervisor, detached (its own session, stdin and stdout closed)."""
    log = ensure_private_dir(supervisor.socket_dir()) / "supervisor.log"
    # Its own session: a terminal's Ctrl-C never reaches it.
    spawn_group(
        [sys.executable, "-m", "oraculum.processes.supervisor", project_id, session_id],
        stderr=log,
    )


def _error(answer: dict[str, Any]) -> OracleError:
    shown = answer.get("error") or {}
    return OracleError(
        error_code(shown.get("code") or ErrorCode.INTERNAL_ERROR),
        shown.get("message", "The supervisor failed."),
        suggested_next_step=shown.get("suggestedNextStep"),
        details=shown.get("details"),
    )


def request(
    project_id: str, session_id: str, message: dict[str, Any], *, start: bool = False
) -> Any:
    """Send one request to the session's supervisor; its result, or its error raised.

    Without a supervisor: ``start`` starts one and waits for it, and so does a session whose
    journal names a process still running (its supervisor was killed: the new one adopts it);
    otherwise None is returned (the session has no CLI-started processes)."""
    try:
        answer = _exchange(project_id, session_id, message)
    except (FileNotFoundError, ConnectionRefusedError):
        # A supervisor that was killed left its processes running: a new one adopts them.
        if not start and not supervisor.journal(project_id, session_id).anything_running():
            return None
        answer = _started_exchange(project_id, session_id, message)
    if not answer.get("ok"):
        raise _error(answer)
    return answer.get("result")


def _started_exchange(project_id: str, session_id: str, message: dict[str, Any]) -> Any:
    _spawn(project_id, session_id)
    deadline = time.monotonic() + _START_WAIT_S
    while True:
        try:
            return _exchange(project_id, session_id, message)
        except (FileNotFoundError, ConnectionRefusedError):
            if time.monotonic() >= deadline:
                raise OracleError(
                    ErrorCode.PROCESS_START_FAILED,
                    "The session's process supervisor did not start.",
                    details={"log": str(supervisor.socket_dir() / "supervisor.log")},
                ) from None
            time.sleep(0.05)


class SupervisedManager:
    """A :class:`~oraculum.processes.manager.ProcessManager`'s calls, answered by the session's
    supervisor: for a caller whose own process ends before its children should (the pi
    bridge runs each tool call as one `oraculum bridge call`)."""

    def __init__(self, project_id: str, session_id: str) -> None:
        self.project_id = project_id
        self.session_id = session_id

    def _ask(self, message: dict[str, Any], *, start: bool = False) -> Any:
        return request(self.project_id, self.session_id, message, start=start)

    def start(self, executable: str, args: Sequence[str] = (), cwd: str | None = None) -> dict:
        message = {"op": "start", "executable": executable, "args": list(args), "cwd": cwd}
        return dict(self._ask(message, start=True))

    def list_records(self) -> list[dict]:
        return list(self._ask({"op": "list"}) or [])

    def output(self, process_id: str, max_bytes: int = limits.OUTPUT_CALL_BYTES) -> dict:
        message = {"op": "output", "id": process_id, "maxBytes": max_bytes}
        return dict(self._known(self._ask(message), process_id))

    def stop(self, process_id: str, *, reason: str = "explicit") -> dict:
        return dict(self._known(self._ask({"op": "stop", "id": process_id}), process_id))

    def stop_all(self, *, reason: str = "session_shutdown") -> list[dict]:
        """Nothing: the supervisor's processes belong to the session, not to this call (the
        session's end stops them: `oraculum proc shutdown`)."""
        return []

    @staticmethod
    def _known(answer: Any, process_id: str) -> Any:
        if answer is None:  # no supervisor: the session never started a process
            raise OracleError(
                ErrorCode.PROCESS_NOT_FOUND,
                f"No managed process {process_id[:40]} in this session.",
                rejected_value=process_id[:100],
            )
        return answer
