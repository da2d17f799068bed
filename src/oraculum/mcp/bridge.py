"""The oracle tools for agent hosts that call oraculum's CLI instead of speaking MCP (the pi
bridge in `integrations/pi/`): one source of truth for their schemas, results and errors.

:func:`describe` lists the tools exactly as the MCP server publishes them (the SDK derives
each input schema from the same function) with the dispatch prompts' text; :func:`call` runs
one tool through the same function, argument check and wording as an MCP `tools/call`. A
bridge delivers wake-ups as new turns of its own, so a result here never carries one: the
bridge's wake-up channel (`oraculum wakeups serve`) hands them out when the session is idle.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio

from oraculum.core.errors import OracleError
from oraculum.core.session import resolve_session_id
from oraculum.jobs.ids import validate_job_ref
from oraculum.mcp.profiles import DEFAULT_PROFILE

__all__ = ["BRIDGE_FAMILY_TOOLS", "BRIDGE_TOOLS", "call", "describe"]

# The MCP tools a bridge offers: the long poll (`oracle_wait`) and the preset list stay MCP's.
BRIDGE_TOOLS = (
    "oracle_preflight",
    "oracle_submit",
    "oracle_read",
    "oracle_status",
    "oracle_cancel",
    "oracle_auth",
)


# The other families' tools a bridge offers: those that finish within the call, or hand what
# must outlive it to a durable owner (the scheduler's store, the session's process
# supervisor). codex_search and the subagent tools keep their work in the server's own
# process, so only a live MCP server offers them.
BRIDGE_FAMILY_TOOLS = frozenset(
    {
        "browser_fetch",
        "scheduler_submit",
        "managed_process_start",
        "managed_process_list",
        "managed_process_output",
        "managed_process_stop",
    }
)


def _specs(profile: str = DEFAULT_PROFILE) -> dict[str, Any]:
    """The bridge's tools in capability profile ``profile`` (see `oraculum mcp
    --list-profiles`): the oracle's, then the profile's families' that a bridge can run."""
    from oraculum.mcp.server import profile_tools

    offered = BRIDGE_TOOLS + tuple(sorted(BRIDGE_FAMILY_TOOLS))
    return {spec.name: spec for spec in profile_tools(profile) if spec.name in offered}


async def _listed(profile: str = DEFAULT_PROFILE) -> list[dict[str, Any]]:
    """The tools as an MCP `tools/list` shows them, from a server holding only these tools."""
    from mcp.server.mcpserver import MCPServer

    from oraculum.mcp.toolkit import register_tools

    server: MCPServer = MCPServer(name="oraculum-bridge")
    register_tools(server, _specs(profile).values())
    return [
        {
            "name": tool.name,
            "title": tool.title,
            "description": tool.description,
            "inputSchema": tool.input_schema,
        }
        for tool in await server.list_tools()
    ]


def _prompt_templates() -> dict[str, str]:
    """The dispatch prompts with their arguments as pi's template placeholders."""
    from oraculum.mcp.prompts import BRIDGE_WAKEUP, followup_prompt, oracle_prompt

    return {
        "oracle": oracle_prompt("$@", wakeup=BRIDGE_WAKEUP),
        "oracle-followup": followup_prompt("$1", "${@:2}", wakeup=BRIDGE_WAKEUP),
    }


def describe(profile: str = DEFAULT_PROFILE) -> dict[str, Any]:
    """``{"tools": [...], "prompts": {name: template}}``: what a bridge registers."""
    return {"tools": anyio.run(_listed, profile), "prompts": _prompt_templates()}


def render_prompt(name: str, arguments: list[str]) -> str:
    """A dispatch prompt filled in (a host that injects it itself instead of a template)."""
    from oraculum.mcp.prompts import BRIDGE_WAKEUP, followup_prompt, oracle_prompt

    if name == "oracle" and arguments:
        return oracle_prompt(" ".join(arguments), wakeup=BRIDGE_WAKEUP)
    if name == "oracle-followup" and len(arguments) >= 2:
        job_id = validate_job_ref(arguments[0])
        return followup_prompt(job_id, " ".join(arguments[1:]), wakeup=BRIDGE_WAKEUP)
    usage = "oracle <request>" if name == "oracle" else "oracle-followup <jobId> <request>"
    raise OracleError(
        "invalid_argument",
        f"Usage: {usage}.",
        rejected_value=name,
        allowed_values=["oracle", "oracle-followup"],
    )


def call(
    tool: str,
    arguments: object,
    *,
    session: str | None,
    cwd: Path | None = None,
    profile: str = DEFAULT_PROFILE,
) -> dict[str, Any]:
    """Run one tool as the MCP server would for this session: ``{"text", "data", "isError"}``
    (the result's text, its structured content, and whether it is a tool error)."""
    from oraculum.core.crashlog import surface_error
    from oraculum.mcp import render

    try:
        session_id = resolve_session_id(session, action="use the oracle tools")
        assert session_id is not None  # required: resolve raises instead
        given = {} if arguments is None else arguments
        outcome = anyio.run(_call, tool, given, session_id, cwd, profile)
    except Exception as exc:  # every failure is a tool error in the documented shape
        outcome = render.error_outcome(surface_error(exc, surface=f"bridge {tool}"))
    return {"text": outcome.text, "data": outcome.data, "isError": outcome.is_error}


async def _call(
    tool: str, arguments: object, session_id: str, cwd: Path | None, profile: str
) -> Any:
    from oraculum.mcp.arguments import tool_problem, validators
    from oraculum.mcp.render import Outcome
    from oraculum.mcp.server import OracleMcp

    schemas = {t["name"]: t["inputSchema"] for t in await _listed(profile)}
    problem = tool_problem(validators(schemas), tool, arguments)
    if problem is not None:
        raise problem
    assert isinstance(arguments, dict)  # the schema check requires an object
    if arguments.get("background"):
        raise OracleError(
            "invalid_argument",
            f"{tool}: background mode needs a live MCP server (its completion is a later tool "
            "result); through the bridge the call runs to its end: omit background.",
            rejected_value=True,
        )
    state = await anyio.to_thread.run_sync(OracleMcp, session_id, cwd)
    state.poller.active = False  # wake-ups reach a bridge's session as turns, not in results
    state.per_call = True
    context = SimpleNamespace(request_context=SimpleNamespace(lifespan_context=state))
    result = await _specs(profile)[tool].function(context, **arguments)
    text = "".join(getattr(part, "text", "") for part in result.content)
    return Outcome(text, result.structured_content or {}, is_error=bool(result.is_error))
