"""`oraculum proc start|list|output|stop|shutdown`: managed processes from a shell.

The processes belong to the session (`--session` or `$ORACULUM_SESSION`) and live in its
supervisor, started on demand by the first `proc start` (docs/processes.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from oraculum.cli.app import app, emit
from oraculum.cli.wait_cmd import SESSION_OPTION

if TYPE_CHECKING:
    from rich.console import Console

proc_app = typer.Typer(
    help="Long-running local processes owned by the session (servers, watchers).",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(proc_app, name="proc")

ID_ARGUMENT = typer.Argument(..., help="The process id (see `oraculum proc list`).")
COMMAND_ARGUMENT = typer.Argument(
    ..., help="After `--`: the executable and its literal arguments (no shell)."
)


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
    from oraculum.core.errors import OracleError

    raise OracleError(
        "process_not_found",
        f"No managed process {process_id} in this session (it runs none).",
        suggested_next_step="List them with `oraculum proc list`.",
    )


def _describe(record: dict[str, Any], out: Console) -> None:
    from oraculum.processes.wording import describe

    out.print(describe(record), markup=False)


@proc_app.command("start", context_settings={"allow_interspersed_args": False})
def start_command(
    command: list[str] = COMMAND_ARGUMENT,
    cwd: str | None = typer.Option(None, "--cwd", help="Working directory (default: here)."),
    session: str | None = SESSION_OPTION,
) -> None:
    """Start a process owned by the session; returns once the OS accepted the spawn."""
    import os

    where = os.path.abspath(cwd) if cwd else os.getcwd()
    message = {"op": "start", "executable": command[0], "args": command[1:], "cwd": where}
    record = _call(session, message, start=True)
    emit({"process": record}, lambda out: _describe(record, out))


@proc_app.command("list")
def list_command(session: str | None = SESSION_OPTION) -> None:
    """The session's managed processes (running and the last finished ones)."""
    from oraculum.processes.wording import list_text

    records = _call(session, {"op": "list"}) or []
    emit({"processes": records}, lambda out: out.print(list_text(records), markup=False))


@proc_app.command("output")
def output_command(
    process_id: str = ID_ARGUMENT,
    max_bytes: int = typer.Option(
        20 * 1024, "--max-bytes", min=0, help="Newest bytes per stream (at most 20,480)."
    ),
    session: str | None = SESSION_OPTION,
) -> None:
    """The newest stdout and stderr of a process, with the earlier bytes not shown counted."""
    from oraculum.processes.wording import output_text

    result = _call(session, {"op": "output", "id": process_id, "maxBytes": max_bytes})
    if result is None:
        _no_supervisor(process_id)
    emit(result, lambda out: out.print(output_text(result), markup=False))


@proc_app.command("stop")
def stop_command(process_id: str = ID_ARGUMENT, session: str | None = SESSION_OPTION) -> None:
    """Stop a process and its process group (SIGTERM, grace, SIGKILL, verified)."""
    record = _call(session, {"op": "stop", "id": process_id})
    if record is None:
        _no_supervisor(process_id)
    emit({"process": record}, lambda out: _describe(record, out))


@proc_app.command("shutdown")
def shutdown_command(session: str | None = SESSION_OPTION) -> None:
    """End the session's processes: stop every one, verified, and its supervisor."""
    from oraculum.processes.wording import list_text

    records = _call(session, {"op": "shutdown"}) or []
    emit({"processes": records}, lambda out: out.print(list_text(records), markup=False))
