"""The pi backend: one ``pi --mode rpc`` child per turn, JSONL over its stdio.

The child is launched with a literal argv, in its own process group, inheriting this
process's environment (provider credentials included; it is not sandboxed): extensions,
prompt templates and MCP servers off, skills only from the user's pi skills directory, a short
worker instruction appended to the system prompt, and the optional name, tool allowlist, model
and reasoning level. A continuation opens the saved session file with ``--session``; pi keeps
that file after the child exits. Facts from pi 1.6's docs/rpc.md, rpc-commands.md and json.md:
a ``prompt`` response means accepted; ``agent_settled`` (``aborted``) ends the run; an assistant
``message_end`` with ``stopReason`` ``error`` carries ``errorMessage``.
"""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.process_group import end_group, hurry_group, spawn_group
from oraculum.subagents.backend import CancelFlag, TurnOutcome, TurnStatus
from oraculum.subagents.jsonl import ChannelClosed, JsonlChannel
from oraculum.subagents.spec import LaunchSpec, Routing

__all__ = ["EXECUTABLE", "WORKER_PROMPT", "PiChild", "PiRpcBackend", "pi_argv"]

EXECUTABLE = "pi"
HANDSHAKE_TIMEOUT_S = 60.0  # a cold node start on a loaded machine takes seconds
REQUEST_TIMEOUT_S = 60.0
EXIT_GRACE_S = 5.0
CANCEL_SETTLE_S = 10.0
WORKER_PROMPT = (
    "You are a subagent started by another agent. Do the task yourself with your own tools; "
    "do not delegate it to other agents. End with a concise report of what you found or did."
)


def _skills_dir() -> Path:
    agent_dir = os.environ.get("PI_CODING_AGENT_DIR")
    return Path(agent_dir) / "skills" if agent_dir else Path.home() / ".pi" / "agent" / "skills"


def pi_argv(
    executable: str,
    spec: LaunchSpec,
    routing: Routing,
    session_ref: str | None,
    skills: Path | None = None,
) -> list[str]:
    """The child's literal argv (pure; every value was validated by oraculum.subagents.spec)."""
    argv = [executable, "--mode", "rpc", "--no-extensions", "--no-prompt-templates", "--no-mcp"]
    argv += ["--no-skills", *(["--skill", str(skills)] if skills is not None else [])]
    argv += ["--append-system-prompt", WORKER_PROMPT]
    if routing.model is not None:
        argv += ["--model", routing.model]
    if routing.reasoning is not None:
        argv += ["--thinking", routing.reasoning]
    if session_ref is not None:
        argv += ["--session", session_ref]
    elif spec.name is not None:
        argv += ["--name", spec.name]
    if spec.tools is not None:
        argv += ["--tools", ",".join(spec.tools)]
    return argv


def _unavailable(message: str, stderr: str = "") -> OracleError:
    return OracleError(
        ErrorCode.SUBAGENT_UNAVAILABLE,
        message + (f"\npi's stderr (tail):\n{stderr.strip()[-2000:]}" if stderr.strip() else ""),
        suggested_next_step="Check that `pi` runs here (`pi --version`) and its model is set up.",
    )


def _failed(message: str) -> OracleError:
    return OracleError(ErrorCode.SUBAGENT_FAILED, message)


class PiRpcBackend:
    """Launches pi RPC children (the executable is ``pi`` from PATH)."""

    name = "pi"

    def resolve(self) -> str:
        found = shutil.which(EXECUTABLE)
        if found is None:
            raise _unavailable("No `pi` executable on PATH: subagents run pi in RPC mode.")
        return found

    def launch(self, spec: LaunchSpec, routing: Routing, session_ref: str | None) -> PiChild:
        skills = _skills_dir()
        argv = pi_argv(
            self.resolve(), spec, routing, session_ref, skills if skills.is_dir() else None
        )
        try:
            # Its own group: one group signal reaches pi and its tools' children.
            process = spawn_group(
                argv,
                cwd=spec.cwd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except OSError as exc:
            raise _unavailable(f"pi could not be started: {exc}") from None
        child = PiChild(process)
        try:
            child.handshake()
        except BaseException:
            child.close()
            raise
        return child


class PiChild:
    """One pi RPC process serving one turn."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.channel = JsonlChannel(process)
        self._session_ref = ""
        self._closed = False

    @property
    def session_ref(self) -> str:
        return self._session_ref

    def _request(self, command: dict[str, Any], timeout_s: float = REQUEST_TIMEOUT_S) -> Any:
        try:
            response = self.channel.request(command, timeout_s)
        except (ChannelClosed, TimeoutError) as exc:
            raise _failed(f"pi did not answer {command['type']}: {exc}") from None
        if not response.get("success"):
            raise _failed(f"pi refused {command['type']}: {response.get('error') or 'no reason'}")
        return response.get("data")

    def handshake(self) -> None:
        try:
            state = self.channel.request({"type": "get_state"}, HANDSHAKE_TIMEOUT_S)
        except (ChannelClosed, TimeoutError) as exc:
            raise _unavailable(f"pi did not start: {exc}", self.channel.stderr_tail) from None
        data = state.get("data") or {}
        if not state.get("success") or not data.get("sessionFile"):
            raise _unavailable(f"pi has no session file: {state.get('error')}")
        self._session_ref = str(data["sessionFile"])

    def prompt(self, text: str) -> None:
        data = self._request({"type": "prompt", "message": text}) or {}
        if data.get("disposition") == "handled":
            raise _failed("pi consumed the prompt as a command; no turn started.")

    def steer(self, text: str) -> None:
        self._request({"type": "steer", "message": text})

    def abort(self) -> None:
        self._request({"type": "abort"})

    def wait_turn(self, cancel: CancelFlag, timeout_s: float) -> TurnOutcome:
        deadline = time.monotonic() + timeout_s
        last: dict[str, Any] = {}
        while True:
            if cancel.is_set():
                return self._cancelled()
            if time.monotonic() >= deadline:
                self._abort_quietly()
                return TurnOutcome(TurnStatus.FAILED, "", f"no result within {timeout_s:g}s")
            try:
                event = self.channel.events.get(timeout=0.1)
            except queue.Empty:
                continue
            if event is None:
                return self._cancelled() if cancel.is_set() else self._exited()
            if event.get("type") == "message_end" and _role(event) == "assistant":
                last = event["message"]
            elif event.get("type") == "agent_settled":
                return self._settled(bool(event.get("aborted")), last)

    def _settled(self, aborted: bool, last: dict[str, Any]) -> TurnOutcome:
        text = _message_text(last)
        if aborted or last.get("stopReason") == "aborted":
            return TurnOutcome(TurnStatus.INTERRUPTED, text, "the turn was interrupted")
        if last.get("stopReason") == "error":
            return TurnOutcome(TurnStatus.FAILED, text, str(last.get("errorMessage") or "error"))
        try:  # pi's own answer for the turn's final text (skips tool-only messages)
            data = self._request({"type": "get_last_assistant_text"}) or {}
            text = data.get("text") or text
        except OracleError:
            pass
        return TurnOutcome(TurnStatus.COMPLETED, text)

    def _exited(self) -> TurnOutcome:
        code = (
            self.process.wait(EXIT_GRACE_S) if self.process.poll() is None else self.process.poll()
        )
        stderr = self.channel.stderr_tail.strip()[-2000:]
        return TurnOutcome(TurnStatus.FAILED, "", f"pi exited (status {code}) mid-turn. {stderr}")

    def _cancelled(self) -> TurnOutcome:
        self._abort_quietly()
        return TurnOutcome(TurnStatus.INTERRUPTED, "", "the owning session ended")

    def hurry(self) -> None:
        # Both are pi's orderly shutdown (docs/rpc.md "Shutdown"); together they are safe.
        self.channel.close_input()
        hurry_group(self.process.pid)

    def _abort_quietly(self) -> None:
        if self.process.poll() is not None:
            return  # already gone: nothing to abort
        try:
            self._request({"type": "abort"}, CANCEL_SETTLE_S)
        except OracleError:
            pass  # close() ends it anyway

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.channel.close_input()  # pi's orderly shutdown
        try:
            self.process.wait(EXIT_GRACE_S)
        except subprocess.TimeoutExpired:
            pass
        # The group also holds whatever pi's tools started and left behind.
        end_group(self.process.pid, lambda: self.process.poll() is not None, grace_s=2, verify_s=5)
        self.channel.join(EXIT_GRACE_S)


def _role(event: dict[str, Any]) -> str | None:
    message = event.get("message")
    return message.get("role") if isinstance(message, dict) else None


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(
        p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"
    )
