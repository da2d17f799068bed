"""Run one payload: literal argv, no shell, the seed's environment allowlist, output to files.

The payload runs in its own session and process group with stdin from /dev/null. Its stdout and
stderr go to files under the scheduler's runs directory; the wake keeps the first 4,000 bytes of
each. A payload past its timeout gets SIGTERM on its group, then SIGKILL.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oraculum.core.fsio import ensure_private_dir
from oraculum.core.process_group import end_group, spawn_group
from oraculum.processes import lineage
from oraculum.scheduler.validation import Payload

__all__ = [
    "ENV_ALLOWLIST",
    "PREVIEW_BYTES",
    "Outcome",
    "payload_env",
    "preview",
    "run_payload",
]

# What a payload inherits from the runner; credentials and other variables never pass.
ENV_ALLOWLIST = (
    "HOME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "LOGNAME",
    "PATH",
    "PROJECTS_DIR",
    "SHELL",
    "TMPDIR",
    "TZ",
    "USER",
)
PREVIEW_BYTES = 4_000
_KILL_GRACE_S = 5.0
_VERIFY_S = 2.0


@dataclass(frozen=True)
class Outcome:
    """``kind``: exit, signal, timeout, start_error or heartbeat."""

    kind: str
    exit_code: int | None = None
    signal: str | None = None
    message: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind}
        for key in ("exit_code", "signal", "message"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        return data


def payload_env(source: Mapping[str, str]) -> dict[str, str]:
    """Only the allowlisted variables of ``source``."""
    return {k: source[k] for k in ENV_ALLOWLIST if k in source}


def preview(path: Path) -> dict[str, Any]:
    """The file's first 4,000 bytes as text (a cut multi-byte character is dropped)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(PREVIEW_BYTES + 1)
    except OSError:
        return {"preview": "", "truncated": False}
    truncated = len(head) > PREVIEW_BYTES
    text = head[:PREVIEW_BYTES].decode("utf-8", "ignore" if truncated else "replace")
    return {"preview": text, "truncated": truncated}


def _start(payload: Payload, stdout: Path, stderr: Path, mark: str) -> subprocess.Popen[bytes]:
    """Start the payload in its own group, ``mark`` in its environment (see lineage)."""
    for path in (stdout, stderr):
        ensure_private_dir(path.parent)
    with lineage.spawning() as own:
        child = spawn_group(
            [payload.executable, *payload.args],
            cwd=payload.cwd,
            env=lineage.marked_env(mark, payload_env(os.environ)),
            stdout=stdout,
            stderr=stderr,
        )
        own(child.pid)
        return child


def _outcome(returncode: int) -> Outcome:
    if returncode < 0:
        return Outcome("signal", signal=signal.Signals(-returncode).name)
    return Outcome("exit", exit_code=returncode)


def run_payload(
    payload: Payload,
    *,
    stdout: Path,
    stderr: Path,
    timeout_s: float,
    on_start: Callable[[int], None] | None = None,
) -> Outcome:
    """Run to the end (or ``timeout_s``); ``on_start(pid)`` is told the child's pid. A
    payload stopped at its timeout takes every descendant along, those that left its group
    (``setsid``) too: they carry its mark."""
    mark = f"schedule-{secrets.token_hex(8)}"
    try:
        child = _start(payload, stdout, stderr, mark)
    except OSError as exc:
        return Outcome("start_error", message=f"{type(exc).__name__}: {exc}"[:2000])
    if on_start is not None:
        on_start(child.pid)
    try:
        return _outcome(child.wait(timeout=timeout_s))
    except subprocess.TimeoutExpired:
        end = end_group(
            child.pid, lambda: child.poll() is not None, grace_s=_KILL_GRACE_S, verify_s=_VERIFY_S
        )
        lineage.stop_identified(lineage.marked(mark), grace_s=_KILL_GRACE_S, verify_s=_VERIFY_S)
        stopped = "stopped" if end.ok else f"not stopped: {end.error}"
        return Outcome("timeout", message=f"still running after {timeout_s:g}s; {stopped}")
    finally:
        lineage.waited(child.pid)
