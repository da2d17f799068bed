"""What a managed-process call returns, in frozen results the MCP tools and `oraculum proc`
both render (``to_json()``, ``text(surface)``; see :mod:`oraculum.service.result`).

The manager's records stay dicts (they cross the supervisor's socket as JSON): a surface wraps
what a manager returned in the result of its call.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any, Literal

from oraculum.core.surface import Surface

__all__ = ["OutputSnapshot", "ProcessList", "ProcessResult", "describe"]


def _argv(record: dict[str, Any]) -> str:
    return shlex.join([record["executable"], *record["args"]])  # for reading, never a shell


def describe(record: dict[str, Any]) -> str:
    """One line: id, state, pid, argv, and how it ended."""
    line = f"{record['id']} [{record['state']}] pid {record['pid']}: {_argv(record)}"
    if record["exitCode"] is not None:
        line += f" (exit code {record['exitCode']})"
    if record["signal"]:
        line += f" ({record['signal']})"
    if record.get("adopted"):
        line += " (adopted from a supervisor that died: no output, no exit status)"
    if record["stopReason"] and record["state"] != "running":
        line += f"; stop: {record['stopReason']}"
    if record["cleanupError"]:
        line += f"; cleanup failed: {record['cleanupError']}"
    if record["escapedPids"]:
        pids = ", ".join(str(pid) for pid in record["escapedPids"])
        line += f"; left the process group (setsid), stopped with it: pid {pids}"
    return line


@dataclass(frozen=True)
class ProcessResult:
    """One process a call started or stopped."""

    record: dict[str, Any]
    action: Literal["started", "stopped"]

    def to_json(self) -> dict[str, Any]:
        return {"process": self.record}

    def text(self, surface: Surface) -> str:
        if self.action == "started":
            return f"Started {describe(self.record)} in {self.record['cwd']}."
        return f"Stopped {describe(self.record)}."


@dataclass(frozen=True)
class ProcessList:
    """A snapshot of a session's process records (or the ones a shutdown stopped)."""

    records: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {"processes": self.records}

    def text(self, surface: Surface) -> str:
        if not self.records:
            return "No managed processes in this session."
        return "\n".join(["Managed processes:", *(f"- {describe(r)}" for r in self.records)])


@dataclass(frozen=True)
class OutputSnapshot:
    """The newest output of one process: ``{process, stdout, stderr, <stream>OmittedBytes}``."""

    output: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return self.output

    def text(self, surface: Surface) -> str:
        parts = [describe(self.output["process"])]
        for stream in ("stdout", "stderr"):
            omitted = self.output[f"{stream}OmittedBytes"]
            note = f" ({omitted} earlier bytes not shown)" if omitted else ""
            body = self.output[stream] or "(empty)"
            parts.append(f"--- {stream}{note} ---\n{body}")
        return "\n".join(parts)
