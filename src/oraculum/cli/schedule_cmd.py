"""`oraculum schedule submit|list|show|cancel`: durable delayed, repeating and cron work."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from oraculum.cli.app import app, emit
from oraculum.cli.output import table
from oraculum.cli.wait_cmd import SESSION_OPTION

if TYPE_CHECKING:
    from rich.console import Console

schedule_app = typer.Typer(
    help="Schedule a command or a reminder that wakes the session when it has run.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(schedule_app, name="schedule")


COMMAND_ARGUMENT = typer.Argument(
    None, help="The payload after `--`: executable and literal arguments (no shell)."
)


def timing_from_options(
    in_: str | None,
    at: str | None,
    every: str | None,
    count: int | None,
    cron: str | None,
    tz: str | None,
) -> dict[str, Any]:
    """The options given, as the timing object (the checks are the scheduler's)."""
    given = {"in": in_, "at": at, "every": every, "count": count, "cron": cron, "tz": tz}
    return {key: value for key, value in given.items() if value is not None}


def _payload(command: list[str] | None, cwd: str | None) -> dict[str, Any] | None:
    if not command:
        if cwd is not None:
            from oraculum.core.errors import OracleError

            raise OracleError("schedule_payload_invalid", "--cwd needs a command after `--`.")
        return None
    return {"executable": command[0], "args": command[1:], "cwd": cwd}


@schedule_app.command("submit")
def submit_command(
    command: list[str] | None = COMMAND_ARGUMENT,
    prompt: str = typer.Option(
        ..., "--prompt", help="The re-entry prompt the wake carries (≤ 8,000 bytes)."
    ),
    in_: str | None = typer.Option(None, "--in", help="Delay: 30s, 15m, 1h30m, 2d."),
    at: str | None = typer.Option(None, "--at", help="ISO 8601 time (with offset, or --tz)."),
    every: str | None = typer.Option(None, "--every", help="Repeat period, e.g. 30m."),
    count: int | None = typer.Option(None, "--count", help="How many times (needs --every)."),
    cron: str | None = typer.Option(None, "--cron", help="Five-field cron expression."),
    tz: str | None = typer.Option(None, "--tz", help="IANA time zone for --cron or --at."),
    cwd: str | None = typer.Option(None, "--cwd", help="Working directory of the payload."),
    session: str | None = SESSION_OPTION,
) -> None:
    """Schedule a payload (or, without one, a reminder); no timing runs it now."""
    from oraculum.core.project import find_project_root, project_id
    from oraculum.core.session import resolve_session_id
    from oraculum.scheduler.service import submit

    session_id = resolve_session_id(session, action="schedule work")
    assert session_id is not None  # required=True raises instead
    result = submit(
        prompt,
        _payload(command, cwd),
        timing_from_options(in_, at, every, count, cron, tz),
        project_id=project_id(find_project_root()),
        session_id=session_id,
        base=Path.cwd(),
    )
    schedule = result["schedule"]
    nxt = ", ".join(schedule["nextRuns"]) or "now"
    emit(result, text=f"Scheduled {schedule['id']}: next {nxt}.")


def render_list(result: dict[str, Any], console: Console) -> None:
    if not result["schedules"]:
        console.print("No schedules.")
        return
    shown = table("id", "state", "next", "occurrences", "payload")
    for s in result["schedules"]:
        payload = s["payload"]["executable"] if s["payload"] else "(reminder)"
        seen = ", ".join(f"{k} {v}" for k, v in sorted(s["occurrences"].items())) or "-"
        shown.add_row(s["id"], s["state"], (s["nextRuns"] or ["-"])[0], seen, payload)
    console.print(shown)


@schedule_app.command("list")
def list_command(
    all_projects: bool = typer.Option(False, "--all-projects", help="Every project's schedules."),
) -> None:
    """The schedules of this project (or every project), oldest first."""
    from oraculum.core.project import find_project_root, project_id
    from oraculum.scheduler.service import list_schedules

    project = None if all_projects else project_id(find_project_root())
    result = list_schedules(project_id=project)
    emit(result, lambda console: render_list(result, console))


def render_show(result: dict[str, Any], console: Console) -> None:
    schedule = result["schedule"]
    console.print(f"{schedule['id']}  {schedule['state']}", markup=False)
    console.print(f"  timing: {schedule['timing']}", markup=False)
    console.print(f"  next: {', '.join(schedule['nextRuns']) or '-'}", markup=False)
    for occurrence in result["occurrenceList"]:
        console.print(
            f"\n[{occurrence['id']}] {occurrence['scheduledFor']} {occurrence['outcome']}",
            markup=False,
        )
        if occurrence["wake"]:
            console.print(occurrence["wake"], markup=False)


@schedule_app.command("show")
def show_command(schedule_id: str = typer.Argument(..., help="The schedule's id.")) -> None:
    """One schedule with every occurrence and the wake it sent."""
    from oraculum.scheduler.service import show

    result = show(schedule_id)
    emit(result, lambda console: render_show(result, console))


@schedule_app.command("cancel")
def cancel_command(schedule_id: str = typer.Argument(..., help="The schedule's id.")) -> None:
    """Stop a schedule's future occurrences (one already running finishes)."""
    from oraculum.scheduler.service import cancel

    result = cancel(schedule_id)
    state = result["schedule"]["state"]
    word = "Cancelled" if result["cancelled"] else "Not cancelled (already ended):"
    emit(result, text=f"{word} {schedule_id} ({state}).")
