"""How a managed process is described to a reader (the MCP tools and `oraculum proc` alike)."""

from __future__ import annotations

import shlex
from typing import Any

__all__ = ["describe", "list_text", "output_text"]


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


def list_text(records: list[dict[str, Any]]) -> str:
    if not records:
        return "No managed processes in this session."
    return "\n".join(["Managed processes:", *(f"- {describe(r)}" for r in records)])


def output_text(result: dict[str, Any]) -> str:
    parts = [describe(result["process"])]
    for stream in ("stdout", "stderr"):
        omitted = result[f"{stream}OmittedBytes"]
        note = f" ({omitted} earlier bytes not shown)" if omitted else ""
        body = result[stream] or "(empty)"
        parts.append(f"--- {stream}{note} ---\n{body}")
    return "\n".join(parts)
