"""The subagents family: `subagent_start|continue|steer|interrupt|list` (docs/subagents.md).

Each subagent is a clean, persistent child agent conversation (pi in RPC mode). With
``wait: true`` start and continue return the turn's bounded result; otherwise they return once
the child accepted the prompt and the turn's end arrives later as exactly one notice (a
"pong"). The registry lives in this server process, one per owning session; when the session's
server stops, active turns are interrupted and their children stopped (saved sessions stay).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field, with_config

from oraculum.mcp.render import Outcome, outcome
from oraculum.mcp.schemas import (
    OUTWARD_HINTS,
    READ_ONLY_HINTS,
    STOP_HINTS,
    UNTITLED,
    Common,
    arg,
)
from oraculum.mcp.state import OracleMcp, run_operation
from oraculum.mcp.toolkit import ToolSpec
from oraculum.subagents import SubagentRegistry, launch_spec, routing
from oraculum.subagents.pi_rpc import PiRpcBackend
from oraculum.tasks import Owner

if TYPE_CHECKING:
    from oraculum.subagents.results import SubagentTurn

__all__ = [
    "FAMILY",
    "REGISTRY",
    "TOOLS",
    "SubagentOutput",
    "shutdown",
    "subagent_continue",
    "subagent_interrupt",
    "subagent_list",
    "subagent_start",
    "subagent_steer",
]

FAMILY = "subagents"
REGISTRY = SubagentRegistry(PiRpcBackend())

IdArg = Annotated[str, arg("Subagent id", "The subagent's id (from subagent_start or _list).")]
PromptArg = Annotated[str, arg("Prompt", "The task or message for the subagent.")]
ModelArg = Annotated[
    str | None,
    arg(
        "Model",
        "Qualified provider/model for this turn only; only when the user asked for it "
        "(omitted: the agent CLI's default).",
    ),
]
ReasoningArg = Annotated[
    str | None,
    arg(
        "Reasoning",
        "off, minimal, low, medium, high, xhigh or max for this turn; only when the user "
        "asked for it.",
    ),
]
WaitArg = Annotated[
    bool,
    arg(
        "Wait",
        "Wait for the turn's result and return it (print-style). Default: return once the "
        "child accepted the prompt; one pong arrives later.",
    ),
]


@with_config(UNTITLED)
class SubagentOutput(Common, total=False):
    id: str
    name: str | None
    state: Annotated[str, Field(description="starting, running, idle or failed.")]
    session: Annotated[str | None, Field(description="The saved conversation (kept on disk).")]
    taskId: Annotated[str, Field(description="The turn whose one pong will come later.")]
    result: Annotated[dict[str, Any], Field(description="wait: the turn's result.")]
    subagents: list[dict[str, Any]]


def _owner(state: OracleMcp) -> Owner:
    return Owner(state.project_id, state.session_id)


def _accepted(turn: SubagentTurn) -> Outcome:
    text = turn.text("mcp")
    if turn.result is not None:
        return outcome(text.splitlines()[0], turn.to_json(), text=text)
    return outcome(
        text,
        turn.to_json(),
        next_step="Its one completion, failure or interruption pong arrives in a later tool "
        "result: do not sleep, wait or poll subagent_list for it. Start independent subagents "
        "in the same turn, continue other work, or end your response.",
    )


async def subagent_start(
    ctx: Context,
    prompt: PromptArg,
    name: Annotated[str | None, arg("Name", "A display name for the conversation.")] = None,
    cwd: Annotated[
        str | None, arg("Working directory", "Relative to the project, or absolute.")
    ] = None,
    tools: Annotated[
        list[str] | None, arg("Tools", "Allowlist of the child's tool names (e.g. read, bash).")
    ] = None,
    model: ModelArg = None,
    reasoning: ReasoningArg = None,
    wait: WaitArg = False,
) -> Annotated[CallToolResult, SubagentOutput]:
    """Start a clean, persistent subagent conversation (a child pi agent, not sandboxed, with
    this environment's credentials) on a task. At most twelve active at once per session."""

    def call(state: OracleMcp) -> Outcome:
        spec = launch_spec(root=state.root, cwd=cwd, name=name, tools=tools)
        chosen = routing(model, reasoning)
        return _accepted(REGISTRY.start(_owner(state), prompt, spec, chosen, wait=wait))

    return await run_operation(ctx, "subagent_start", call)


async def subagent_continue(
    ctx: Context,
    id: IdArg,
    prompt: PromptArg,
    model: ModelArg = None,
    reasoning: ReasoningArg = None,
    wait: WaitArg = False,
) -> Annotated[CallToolResult, SubagentOutput]:
    """Give a settled subagent conversation its next turn (refused while a turn is active)."""

    def call(state: OracleMcp) -> Outcome:
        turn = REGISTRY.continue_(_owner(state), id, prompt, routing(model, reasoning), wait=wait)
        return _accepted(turn)

    return await run_operation(ctx, "subagent_continue", call)


async def subagent_steer(
    ctx: Context,
    id: IdArg,
    message: Annotated[str, arg("Message", "Steering for the active turn.")],
) -> Annotated[CallToolResult, SubagentOutput]:
    """Steer a subagent's active turn (delivered before its next model call)."""

    def call(state: OracleMcp) -> Outcome:
        result = REGISTRY.steer(_owner(state), id, message)
        return outcome(result.text("mcp"), result.to_json())

    return await run_operation(ctx, "subagent_steer", call)


async def subagent_interrupt(ctx: Context, id: IdArg) -> Annotated[CallToolResult, SubagentOutput]:
    """Interrupt a subagent's active turn; its interruption pong follows."""

    def call(state: OracleMcp) -> Outcome:
        result = REGISTRY.interrupt(_owner(state), id)
        return outcome(result.text("mcp"), result.to_json())

    return await run_operation(ctx, "subagent_interrupt", call)


async def subagent_list(ctx: Context) -> Annotated[CallToolResult, SubagentOutput]:
    """This session's subagent conversations (one snapshot; not a way to wait for pongs)."""

    def call(state: OracleMcp) -> Outcome:
        result = REGISTRY.list(_owner(state))
        text = result.text("mcp")
        return outcome(text.splitlines()[0], result.to_json(), text=text)

    return await run_operation(ctx, "subagent_list", call)


def shutdown(state: OracleMcp) -> None:
    """The session's server stops: interrupt its subagents' turns and stop their children."""
    REGISTRY.shutdown_owner(_owner(state))


TOOLS = (
    ToolSpec(subagent_start, "Start a subagent", OUTWARD_HINTS),
    ToolSpec(subagent_continue, "Continue a subagent", OUTWARD_HINTS),
    ToolSpec(subagent_steer, "Steer a subagent's turn", OUTWARD_HINTS),
    ToolSpec(subagent_interrupt, "Interrupt a subagent's turn", STOP_HINTS),
    ToolSpec(subagent_list, "List this session's subagents", READ_ONLY_HINTS),
)
