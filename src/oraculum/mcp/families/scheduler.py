"""The scheduler family: `scheduler_submit` (durable delayed, repeating and cron work that wakes
this session once per occurrence; docs/scheduler.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import with_config

from oraculum.mcp.render import Outcome, outcome
from oraculum.mcp.schemas import UNTITLED, Common, arg, hints
from oraculum.mcp.state import OracleMcp, run_operation
from oraculum.mcp.toolkit import ToolSpec

if TYPE_CHECKING:
    from oraculum.scheduler.service import ScheduleSubmitted

__all__ = ["FAMILY", "TOOLS", "ScheduleOutput", "scheduler_submit", "submitted_outcome"]

FAMILY = "scheduler"


@with_config(UNTITLED)
class ScheduleOutput(Common, total=False):
    schedule: Annotated[dict[str, Any], arg("Schedule", "The schedule's id and state.")]


def submitted_outcome(result: ScheduleSubmitted) -> Outcome:
    """Accepted: the id and the next fire times; the wakes come in later tool results."""
    schedule = result.schedule
    return outcome(
        result.text("mcp"),
        {"schedule": {"id": schedule["id"], "state": schedule["state"]}},
        next_step="Each occurrence's outcome wakes this session once, in a later tool result; "
        "do not wait or poll for it.",
    )


async def scheduler_submit(
    ctx: Context,
    reentryPrompt: Annotated[
        str,
        arg(
            "Re-entry prompt",
            "A complete, self-contained prompt delivered back with each occurrence's outcome "
            "(at most 8,000 UTF-8 bytes).",
        ),
    ],
    payload: Annotated[
        dict[str, Any] | None,
        arg(
            "Payload",
            "{executable, args?, cwd?}: a literal argv (no shell, no environment); a relative "
            "executable needs cwd; cwd is relative to the project root. Omit for a reminder.",
        ),
    ] = None,
    timing: Annotated[
        dict[str, Any] | None,
        arg(
            "Timing",
            "Omit to run now. {in: '15m'} | {at: ISO 8601} | {every: '30m', count?: N, in|at?} "
            "| {cron: '0 9 * * 1-5', tz?: IANA zone}. Durations: 30s, 15m, 1h30m, 2d.",
        ),
    ] = None,
) -> Annotated[CallToolResult, ScheduleOutput]:
    """Run a fixed, non-interactive command (or just a reminder) now, later, repeatedly or on
    cron, outside this turn; each occurrence's outcome (exit code, 4,000-byte output previews,
    missed or unknown) wakes this session once with the re-entry prompt. Returns at once."""

    def call(state: OracleMcp) -> Outcome:
        from oraculum.scheduler.service import submit

        result = submit(
            reentryPrompt,
            payload,
            timing,
            project_id=state.project_id,
            session_id=state.session_id,
            base=state.root,
        )
        return submitted_outcome(result)

    return await run_operation(ctx, "scheduler_submit", call)


TOOLS = (
    ToolSpec(
        scheduler_submit,
        "Schedule work that wakes this session",
        hints(read_only=False, destructive=True, idempotent=False, open_world=True),
    ),
)
