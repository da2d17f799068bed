"""`oraculum proc start|list|output|stop|shutdown`: managed processes from a shell.

The processes belong to the session (`--session` or `$ORACULUM_SESSION`) and live in its
supervisor, started on demand by the first `proc start` (docs/processes.md).
"""

from __future__ import annotations

from typing import Any

import click

from oraculum.cli.base import SESSION, Group, argument
from oraculum.cli.output import emit

__all__ = ["proc_group"]

PROCESS_ID = argument("process_id", metavar="ID", help="The process id (see `oraculum proc list`).")


@click.group(
    "proc",
    cls=Group,
    examples=(
        "oraculum proc start -- npm run dev",
        "oraculum proc start --cwd web -- bash -c 'make watch | tee log'",
        "oraculum proc output p-1a2b",
        "oraculum proc stop p-1a2b",
    ),
)
def proc_group() -> None:
    """Long-running local processes owned by the session (servers, watchers)."""


def _call(session: str | None, message: dict[str, Any], *, start: bool = False) -> Any:
    """One request to the session's supervisor (loaded here: every start imports this)."""
    from oraculum.core.project import find_project_root, project_id
    from oraculum.core.session import resolve_session_id
    from oraculum.processes.client import request
    from oraculum.processes.manager import refuse_windows

    refuse_windows()  # no process groups, no Unix socket: refused before anything starts
    session_id = resolve_session_id(session, action="manage processes")
    assert session_id is not None  # required: it raises instead
    return request(project_id(find_project_root()), session_id, message, start=start)


def _no_supervisor(process_id: str) -> Any:
    from oraculum.core.errors import ErrorCode, OracleError

    raise OracleError(
        ErrorCode.PROCESS_NOT_FOUND,
        f"No managed process {process_id} in this session (it runs none).",
        suggested_next_step="List them with `oraculum proc list`.",
    )


@proc_group.command("start", context_settings={"allow_interspersed_args": False})
@argument(
    "command",
    nargs=-1,
    required=True,
    help="After `--`: the executable and its literal arguments (no shell).",
)
@click.option("--cwd", metavar="DIR", help="Working directory (default: here).")
@SESSION
def start_command(command: tuple[str, ...], cwd: str | None, session: str | None) -> None:
    """Start a process owned by the session; returns once the OS accepted the spawn."""
    import os

    from oraculum.processes.results import ProcessResult

    where = os.path.abspath(cwd) if cwd else os.getcwd()
    message = {"op": "start", "executable": command[0], "args": list(command[1:]), "cwd": where}
    result = ProcessResult(_call(session, message, start=True), "started")
    emit(result.to_json(), text=result.text("cli"))


@proc_group.command("list")
@SESSION
def list_command(session: str | None) -> None:
    """The session's managed processes (running and the last finished ones)."""
    from oraculum.processes.results import ProcessList

    result = ProcessList(_call(session, {"op": "list"}) or [])
    emit(result.to_json(), text=result.text("cli"))


@proc_group.command("output")
@PROCESS_ID
@click.option(
    "--max-bytes",
    type=click.IntRange(min=0),
    metavar="N",
    default=20 * 1024,
    show_default=True,
    help="Newest bytes per stream (at most 20,480).",
)
@SESSION
def output_command(process_id: str, max_bytes: int, session: str | None) -> None:
    """The newest stdout and stderr of a process, with the earlier bytes not shown counted."""
    from oraculum.processes.results import OutputSnapshot

    output = _call(session, {"op": "output", "id": process_id, "maxBytes": max_bytes})
    if output is None:
        _no_supervisor(process_id)
    result = OutputSnapshot(output)
    emit(result.to_json(), text=result.text("cli"))


@proc_group.command("stop")
@PROCESS_ID
@SESSION
def stop_command(process_id: str, session: str | None) -> None:
    """Stop a process and its process group (SIGTERM, grace, SIGKILL, verified)."""
    from oraculum.processes.results import ProcessResult

    record = _call(session, {"op": "stop", "id": process_id})
    if record is None:
        _no_supervisor(process_id)
    result = ProcessResult(record, "stopped")
    emit(result.to_json(), text=result.text("cli"))


@proc_group.command("shutdown")
@SESSION
def shutdown_command(session: str | None) -> None:
    """End the session's processes: stop every one, verified, and its supervisor."""
    from oraculum.processes.results import ProcessList

    result = ProcessList(_call(session, {"op": "shutdown"}) or [])
    emit(result.to_json(), text=result.text("cli"))
