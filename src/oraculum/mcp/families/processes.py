"""The managed-process family: `managed_process_start|list|output|stop` (docs/processes.md).

Long-running local processes (servers, watchers, tails) owned by this server's session: a
literal argv, no shell, stdin closed, each its own process group. They run until stopped or
until the session's server stops (:func:`shutdown` stops every one, verified). No completion
wake-up by design: list and output are snapshots.
"""

from __future__ import annotations

import threading
import weakref
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field, with_config

from oraculum.mcp.render import Outcome, outcome
from oraculum.mcp.schemas import READ_ONLY_HINTS, STOP_HINTS, UNTITLED, Common, arg, hints
from oraculum.mcp.state import OracleMcp, run_operation
from oraculum.mcp.toolkit import ToolSpec
from oraculum.processes import limits
from oraculum.processes.client import SupervisedManager
from oraculum.processes.manager import ProcessManager
from oraculum.processes.results import OutputSnapshot, ProcessList, ProcessResult

__all__ = [
    "FAMILY",
    "TOOLS",
    "ProcessOutput",
    "managed_process_list",
    "managed_process_output",
    "managed_process_start",
    "managed_process_stop",
    "manager_for",
    "shutdown",
]

FAMILY = "processes"

Manager = ProcessManager | SupervisedManager
_MANAGERS: weakref.WeakKeyDictionary[OracleMcp, Manager] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()

ProcessId = Annotated[str, arg("Process id", "A managed process id (see managed_process_list).")]


@with_config(UNTITLED)
class ProcessOutput(Common, total=False):
    process: Annotated[dict[str, Any], Field(description="The process record.")]
    processes: list[dict[str, Any]]
    stdout: str
    stderr: str
    stdoutOmittedBytes: Annotated[int, Field(description="Earlier stdout bytes not shown.")]
    stderrOmittedBytes: int


def shown(record: dict[str, Any], *more: str) -> dict[str, Any]:
    """What a result's structured content holds of a process record: its id, state and
    ``more`` (the text describes the rest: pid, argv, how it ended)."""
    return {key: record[key] for key in ("id", "state", *more)}


def manager_for(state: OracleMcp) -> Manager:
    """This server's (this session's) process manager, made on first use."""
    with _LOCK:
        manager = _MANAGERS.get(state)
        if manager is None:
            manager = _MANAGERS[state] = (
                SupervisedManager(state.project_id, state.session_id)
                if state.per_call
                else ProcessManager()
            )
        return manager


def _cwd(state: OracleMcp, cwd: str | None) -> str | None:
    """A relative cwd is the project's subdirectory."""
    if cwd is None:
        return None
    return str(Path(state.root) / cwd) if not Path(cwd).is_absolute() else cwd


async def managed_process_start(
    ctx: Context,
    executable: Annotated[
        str,
        arg("Executable", "The program: a path, or a name looked up on PATH. No shell."),
    ],
    args: Annotated[
        list[str],
        arg("Arguments", "Literal arguments (at most 127, 8,000 bytes each, 64 KiB in all)."),
    ] = [],  # noqa: B006 - the SDK reads the default into the schema; it is never mutated
    cwd: Annotated[
        str | None,
        arg("Working directory", "Where it runs (relative to the project root; default: it)."),
    ] = None,
) -> Annotated[CallToolResult, ProcessOutput]:
    """Start a long-running local process (a dev server, watcher, tail) owned by this session:
    literal argv, no shell, stdin closed, no TTY, its own process group. Returns once the OS
    accepted the spawn (not when it is ready). It runs until managed_process_stop or the
    session ends; there is no completion wake-up. At most 8 run at once. It inherits this
    server's environment and is not sandboxed; never put secrets in arguments."""

    def call(state: OracleMcp) -> Outcome:
        where = _cwd(state, cwd) or str(state.root)
        result = ProcessResult(manager_for(state).start(executable, args, where), "started")
        return outcome(
            result.text("mcp"),
            {"process": shown(result.record, "pid")},
            next_step="Read its output with managed_process_output, stop it with "
            "managed_process_stop.",
        )

    return await run_operation(ctx, "managed_process_start", call)


async def managed_process_list(ctx: Context) -> Annotated[CallToolResult, ProcessOutput]:
    """One snapshot of this session's managed processes (running and the last finished ones,
    at most 64 records)."""

    def call(state: OracleMcp) -> Outcome:
        result = ProcessList(manager_for(state).list_records())
        text = result.text("mcp")
        rows = [shown(r) for r in result.records]
        return outcome(text.splitlines()[0], {"processes": rows}, text=text)

    return await run_operation(ctx, "managed_process_list", call)


async def managed_process_output(
    ctx: Context,
    id: ProcessId,
    maxBytes: Annotated[
        int,
        arg("Max bytes", "At most this many of the newest bytes per stream (≤ 20,480).", ge=0),
    ] = limits.OUTPUT_CALL_BYTES,
) -> Annotated[CallToolResult, ProcessOutput]:
    """The newest stdout and stderr of a managed process (at most 20 KiB each, cut at UTF-8
    character boundaries), with the number of earlier bytes not shown. A snapshot: call again
    later for more."""

    def call(state: OracleMcp) -> Outcome:
        result = OutputSnapshot(manager_for(state).output(id, maxBytes))
        text = result.text("mcp")
        data = {**result.to_json(), "process": shown(result.output["process"])}
        return outcome(text.splitlines()[0], data, text=text)

    return await run_operation(ctx, "managed_process_output", call)


async def managed_process_stop(
    ctx: Context, id: ProcessId
) -> Annotated[CallToolResult, ProcessOutput]:
    """Stop a managed process and its process group: SIGTERM, a short grace, SIGKILL, then a
    check that the group is gone. A descendant that left the group (setsid) is stopped too and
    named in escapedPids; a cleanup failure is reported."""

    def call(state: OracleMcp) -> Outcome:
        result = ProcessResult(manager_for(state).stop(id), "stopped")
        return outcome(result.text("mcp"), {"process": shown(result.record)})

    return await run_operation(ctx, "managed_process_stop", call)


def shutdown(state: OracleMcp) -> None:
    """The session's server stops: stop every process it started, verified."""
    with _LOCK:
        manager = _MANAGERS.pop(state, None)
    if manager is not None:
        manager.stop_all(reason="session_shutdown")


TOOLS = (
    ToolSpec(
        managed_process_start,
        "Start a managed process",
        hints(read_only=False, destructive=False, idempotent=False, open_world=False),
    ),
    ToolSpec(managed_process_list, "List managed processes", READ_ONLY_HINTS),
    ToolSpec(managed_process_output, "Read a managed process's output", READ_ONLY_HINTS),
    ToolSpec(managed_process_stop, "Stop a managed process", STOP_HINTS),
)
