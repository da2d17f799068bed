"""`oraculum schedule submit|list|show|cancel`: durable delayed, repeating and cron work."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from oraculum.cli.base import SESSION, Group, argument
from oraculum.cli.output import emit

__all__ = ["schedule_group"]

SCHEDULE_ID = argument("schedule_id", metavar="ID", help="The schedule's id.")


@click.group(
    "schedule",
    cls=Group,
    examples=(
        'oraculum schedule submit --in 30m --prompt "Check the deploy"',
        'oraculum schedule submit --cron "0 9 * * 1-5" --tz Europe/Paris '
        '--prompt "Triage the inbox" -- ./triage.sh',
        "oraculum schedule list",
    ),
)
def schedule_group() -> None:
    """Schedule a command or a reminder that wakes the session when it has run."""


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


def _payload(command: tuple[str, ...], cwd: str | None) -> dict[str, Any] | None:
    if not command:
        if cwd is not None:
            from oraculum.core.errors import ErrorCode, OracleError

            raise OracleError(
                ErrorCode.SCHEDULE_PAYLOAD_INVALID, "--cwd needs a command after `--`."
            )
        return None
    return {"executable": command[0], "args": list(command[1:]), "cwd": cwd}


@schedule_group.command("submit")
@argument(
    "command",
    nargs=-1,
    help="The payload after `--`: executable and literal arguments (no shell).",
)
@click.option(
    "--prompt",
    metavar="PROMPT",
    required=True,
    help="The re-entry prompt the wake carries (≤ 8,000 bytes).",
)
@click.option("--in", "in_", metavar="DELAY", help="Delay: 30s, 15m, 1h30m, 2d.")
@click.option("--at", metavar="TIME", help="ISO 8601 time (with offset, or --tz).")
@click.option("--every", metavar="PERIOD", help="Repeat period, e.g. 30m.")
@click.option("--count", type=int, metavar="N", help="How many times (needs --every).")
@click.option("--cron", metavar="EXPR", help="Five-field cron expression.")
@click.option("--tz", metavar="ZONE", help="IANA time zone for --cron or --at.")
@click.option("--cwd", metavar="DIR", help="Working directory of the payload.")
@SESSION
def submit_command(
    command: tuple[str, ...],
    prompt: str,
    in_: str | None,
    at: str | None,
    every: str | None,
    count: int | None,
    cron: str | None,
    tz: str | None,
    cwd: str | None,
    session: str | None,
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
    emit(result.to_json(), text=result.text("cli"))


@schedule_group.command("list")
@click.option("--all-projects", is_flag=True, help="Every project's schedules.")
def list_command(all_projects: bool) -> None:
    """The schedules of this project (or every project), oldest first."""
    from oraculum.core.project import find_project_root, project_id
    from oraculum.scheduler.service import list_schedules

    project = None if all_projects else project_id(find_project_root())
    result = list_schedules(project_id=project)
    emit(result.to_json(), text=result.text("cli"))


@schedule_group.command("show")
@SCHEDULE_ID
def show_command(schedule_id: str) -> None:
    """One schedule with every occurrence and the wake it sent."""
    from oraculum.scheduler.service import show

    result = show(schedule_id)
    emit(result.to_json(), text=result.text("cli"))


@schedule_group.command("cancel")
@SCHEDULE_ID
def cancel_command(schedule_id: str) -> None:
    """Stop a schedule's future occurrences (one already running finishes)."""
    from oraculum.scheduler.service import cancel

    result = cancel(schedule_id)
    emit(result.to_json(), text=result.text("cli"))
