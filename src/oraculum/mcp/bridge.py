"""The oracle tools for agent hosts that call oraculum's CLI instead of speaking MCP (the pi
bridge in `integrations/pi/`): one source of truth for their schemas, results and errors.

:func:`describe` lists the tools as the MCP server publishes them (the SDK derives each input
schema from the same function) in the host's words (:func:`host_words`: a later outcome arrives
as a new message, there is no `oracle_wait` or `oracle_presets`, `browser_fetch` runs to its
end), with the dispatch prompts' text; :func:`call` runs one tool through the same function,
argument check and wording as an MCP `tools/call`; :func:`serve` answers a session's calls in
one long-lived process (`oraculum bridge serve`), so a call costs no interpreter start nor SDK
import. A bridge delivers wake-ups as new turns of its own, so a result here never carries
one: the bridge's wake-up channel (`oraculum wakeups serve`) hands them out when the session
is idle.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import IO, TYPE_CHECKING, Any

import anyio

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.session import resolve_session_id
from oraculum.jobs.ids import validate_job_ref
from oraculum.mcp.profiles import DEFAULT_PROFILE

if TYPE_CHECKING:
    from oraculum.mcp.state import OracleMcp

__all__ = [
    "BRIDGE_FAMILY_TOOLS",
    "BRIDGE_TOOLS",
    "BridgeSession",
    "call",
    "describe",
    "host_words",
    "serve",
]

# The MCP tools a bridge offers: the long poll (`oracle_wait`) and the preset list stay MCP's.
BRIDGE_TOOLS = (
    "oracle_preflight",
    "oracle_submit",
    "oracle_read",
    "oracle_status",
    "oracle_cancel",
    "oracle_auth",
    "oracle_council",
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
    """The tools as an MCP `tools/list` shows them, from a server holding only these tools
    (the schemas a call is checked against)."""
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


# Where MCP's texts say a later outcome shows up, or name what a bridge does not offer, and
# what is true through a bridge instead (it starts a new turn with each wake-up and notice).
HOST_WORDS = (
    (" (or call oracle_wait)", ""),
    (" (or long-poll with oracle_wait)", ""),
    (" (see oracle_presets)", ""),
    ("wakes this session once with", "arrives once as a new message, with"),
    ("arrives in a later oracle tool result", "arrives as a new message"),
    ("wakes this session once, in a later tool result", "arrives once as a new message"),
    (
        "start independent fetches together with background: true",
        "each call runs to its end; start independent fetches as several calls in one turn "
        "(they run side by side)",
    ),
)
# Arguments a bridge refuses (`background` needs a live MCP server): not offered to a model.
HIDDEN_ARGUMENTS = ("background",)


def host_words(text: str) -> str:
    """MCP's wording of ``text`` as it is true through a bridge."""
    for mcp_words, bridge_words in HOST_WORDS:
        text = text.replace(mcp_words, bridge_words)
    return text


def _bridge_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """A listed tool as a bridge offers it: its texts in the host's words, without the
    arguments it refuses."""
    schema = dict(tool["inputSchema"])
    properties = {
        name: {**spec, "description": host_words(spec["description"])}
        if isinstance(spec.get("description"), str)
        else spec
        for name, spec in schema.get("properties", {}).items()
        if name not in HIDDEN_ARGUMENTS
    }
    if "properties" in schema:
        schema["properties"] = properties
    if isinstance(tool["description"], str):
        tool = {**tool, "description": host_words(tool["description"])}
    return {**tool, "inputSchema": schema}


def describe(profile: str = DEFAULT_PROFILE) -> dict[str, Any]:
    """``{"tools": [...], "prompts": {name: template}}``: what a bridge registers."""
    listed = anyio.run(_listed, profile)
    return {"tools": [_bridge_tool(tool) for tool in listed], "prompts": _prompt_templates()}


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
        ErrorCode.INVALID_ARGUMENT,
        f"Usage: {usage}.",
        rejected_value=name,
        allowed_values=["oracle", "oracle-followup"],
    )


class BridgeSession:
    """One session's tools, loaded once: the checked schemas and the server state every call
    of a long-lived `bridge serve` shares (a one-shot `bridge call` builds one for its call).
    The state is made at the first call that needs it, and again after a failed attempt (a
    config fixed meanwhile is then read)."""

    def __init__(
        self, session: str | None, *, cwd: Path | None = None, profile: str = DEFAULT_PROFILE
    ) -> None:
        self.session = session
        self.cwd = cwd
        self.profile = profile
        self.specs: dict[str, Any] = {}
        self._validators: Any = None
        self._state: OracleMcp | None = None

    async def load(self) -> None:
        """Import and check everything a call needs (the SDK, the profile's tools and their
        schemas); an unknown profile raises here."""
        from oraculum.mcp.arguments import validators

        if self._validators is None:
            self.specs = _specs(self.profile)
            self._validators = validators(
                {t["name"]: t["inputSchema"] for t in await _listed(self.profile)}
            )

    async def _session_state(self, session_id: str) -> OracleMcp:
        from oraculum.mcp.state import OracleMcp

        if self._state is None:
            state = await anyio.to_thread.run_sync(OracleMcp, session_id, self.cwd)
            state.poller.active = False  # wake-ups reach a bridge's session as turns
            state.per_call = True
            self._state = state
        return self._state

    async def call(self, tool: str, arguments: object) -> dict[str, Any]:
        """Run one tool as the MCP server would for this session: ``{"text", "data",
        "isError"}`` (the result's text in the host's words, its structured content, and
        whether it is a tool error)."""
        from oraculum.core.crashlog import surface_error
        from oraculum.mcp import render
        from oraculum.mcp.arguments import tool_problem
        from oraculum.mcp.render import Outcome

        try:
            session_id = resolve_session_id(self.session, action="use the oracle tools")
            assert session_id is not None  # required: resolve raises instead
            await self.load()
            given = {} if arguments is None else arguments
            problem = tool_problem(self._validators, tool, given)
            if problem is not None:
                raise problem
            assert isinstance(given, dict)  # the schema check requires an object
            if given.get("background"):
                raise OracleError(
                    ErrorCode.INVALID_ARGUMENT,
                    f"{tool} has no background mode here (it needs a live MCP server): the "
                    "call runs to its end; omit background.",
                    rejected_value=True,
                )
            state = await self._session_state(session_id)
            context = SimpleNamespace(request_context=SimpleNamespace(lifespan_context=state))
            result = await self.specs[tool].function(context, **given)
            text = "".join(getattr(part, "text", "") for part in result.content)
            outcome = Outcome(text, result.structured_content or {}, is_error=bool(result.is_error))
        except Exception as exc:  # every failure is a tool error in the documented shape
            outcome = render.error_outcome(surface_error(exc, surface=f"bridge {tool}"))
        return {"text": host_words(outcome.text), "data": outcome.data, "isError": outcome.is_error}


def call(
    tool: str,
    arguments: object,
    *,
    session: str | None,
    cwd: Path | None = None,
    profile: str = DEFAULT_PROFILE,
) -> dict[str, Any]:
    """Run one tool in a session of its own (`oraculum bridge call`): see
    :meth:`BridgeSession.call`."""
    return anyio.run(BridgeSession(session, cwd=cwd, profile=profile).call, tool, arguments)


# One request line at most: a tool's arguments (a prompt of up to 8 MiB, JSON-escaped).
MAX_REQUEST_BYTES = 32 * 2**20


def parse_request(line: str) -> tuple[object, str, object]:
    """``(id, tool, arguments)`` of one request line ``{"id", "tool", "arguments"?}``."""
    from oraculum.core.bounded import loads_bounded

    request: object = None
    if len(line) <= MAX_REQUEST_BYTES:
        try:
            request = loads_bounded(line)
        except ValueError:
            request = None
    if isinstance(request, dict) and isinstance(request.get("tool"), str):
        return request.get("id"), request["tool"], request.get("arguments")
    raise OracleError(
        ErrorCode.INVALID_ARGUMENT,
        'Each input line is one JSON object {"id", "tool", "arguments"}.',
        rejected_value=line[:200],
    )


def serve(
    lines: IO[str],
    out: IO[str],
    *,
    session: str | None,
    cwd: Path | None = None,
    profile: str = DEFAULT_PROFILE,
) -> None:
    """Answer tool calls, one JSON line each, until end of input: first ``{"type": "ready",
    "tools"}`` once everything a call needs is loaded, then per request ``{"type":
    "result", "id", "text", "data", "isError"}``. Calls run side by side (a host runs a
    turn's tool calls in parallel), so answers come in the order they finish; a line that
    is not a request gets ``{"type": "error", "error"}``."""
    anyio.run(_serve, lines, out, BridgeSession(session, cwd=cwd, profile=profile))


async def _serve(lines: IO[str], out: IO[str], bridge: BridgeSession) -> None:
    def write(message: dict[str, Any]) -> None:
        out.write(json.dumps(message, ensure_ascii=False) + "\n")
        out.flush()

    async def answer(request_id: object, tool: str, arguments: object) -> None:
        write({"type": "result", "id": request_id, **await bridge.call(tool, arguments)})

    await bridge.load()
    write({"type": "ready", "tools": sorted(bridge.specs)})
    async with anyio.create_task_group() as calls:
        async for line in anyio.wrap_file(lines):
            if not line.strip():
                continue
            try:
                request_id, tool, arguments = parse_request(line)
            except OracleError as error:
                write({"type": "error", "error": error.to_dict()})
                continue
            calls.start_soon(answer, request_id, tool, arguments)
