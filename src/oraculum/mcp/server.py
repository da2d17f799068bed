"""`oraculum mcp`: the tool families, prompts and resources over MCP (official SDK v2).

The server is a thin surface over :mod:`oraculum.service`: the tools are the families' of
:mod:`oraculum.mcp.families` (the oracle's own first), each running one operation with the
per-process state of :mod:`oraculum.mcp.state`; this module adds the prompts, the job and
preset resources, the argument guard and the background scan that announces finished jobs.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS
from pydantic import Field

from oraculum.core.crashlog import surface_error
from oraculum.core.errors import ErrorCode
from oraculum.mcp import prompts, render
from oraculum.mcp.arguments import prompt_problem, tool_problem, validators
from oraculum.mcp.families import family_modules
from oraculum.mcp.identity import INSTRUCTIONS, NAME, VERSION
from oraculum.mcp.profiles import DEFAULT_PROFILE, ORACLE, profile_families
from oraculum.mcp.state import JOB_URI, OracleMcp, state_of
from oraculum.mcp.toolkit import ToolSpec, register_tools
from oraculum.service.presets import presets
from oraculum.service.status import job_in_project
from oraculum.service.summary import job_summary

__all__ = [
    "JOB_URI",
    "OracleMcp",
    "all_tools",
    "build_server",
    "profile_tools",
    "run_stdio",
]

log = logging.getLogger("oraculum.mcp")

RESPONSE_URI = "oraculum://jobs/{job_id}/response"
PRESETS_URI = "oraculum://presets"
RESOURCE_NOT_FOUND = -32002  # the MCP spec's code for an unknown resource


def oracle_prompt(
    request: Annotated[str, Field(description="What to ask the oracle, in your own words.")],
) -> str:
    return prompts.oracle_prompt(prompts.as_received(request))


def oracle_followup_prompt(
    jobId: Annotated[str, Field(description="The completed oracle job to continue.")],
    request: Annotated[str, Field(description="The follow-up request.")],
) -> str:
    return prompts.followup_prompt(jobId, prompts.as_received(request))


def _resource_error(exc: Exception, uri: str) -> MCPError:
    """A resource read's failure in the documented shape: message `[code] message`, the error
    object in `data.error`; never a traceback on stderr."""
    error = surface_error(exc, surface=f"mcp resource {uri}")
    shown = render.error_outcome(error)
    code = {
        ErrorCode.JOB_NOT_FOUND: RESOURCE_NOT_FOUND,
        ErrorCode.INTERNAL_ERROR: INTERNAL_ERROR,
    }.get(error.code, INVALID_PARAMS)
    return MCPError(code=code, message=shown.text, data=shown.data)


def job_resource(job_id: str, ctx: Context) -> str:
    # Looking at a resource is not reading the answer: it settles nothing.
    uri = JOB_URI.format(job_id=job_id)
    try:
        state = state_of(ctx)
        job = job_in_project(state.store, job_id, state.root)
        return json.dumps(job_summary(job), indent=2, ensure_ascii=False)
    except Exception as exc:
        raise _resource_error(exc, uri) from None


def response_resource(job_id: str, ctx: Context) -> str:
    uri = RESPONSE_URI.format(job_id=job_id)
    try:
        state = state_of(ctx)
        job = job_in_project(state.store, job_id, state.root)
        path = Path(job.response_path)
        if not path.exists():
            return f"Response file: unavailable yet (job {job.id} is {job.status.value})."
        return path.read_text(encoding="utf-8", errors="replace")
    except Exception as exc:
        raise _resource_error(exc, uri) from None


def presets_resource() -> str:
    return json.dumps(presets().rows, indent=2)


class ArgumentGuard:
    """Middleware: arguments that break a tool's input schema or a prompt's required arguments
    are refused as `invalid_argument` in the documented shape (not the SDK's validation text),
    before the SDK parses them."""

    def __init__(self, server: MCPServer) -> None:
        self.server = server
        self.tool_validators: dict[str, Any] | None = None
        self.prompt_arguments: dict[str, list[tuple[str, bool]]] | None = None

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        params = ctx.params if isinstance(ctx.params, dict) else {}
        if ctx.method == "tools/call":
            if self.tool_validators is None:
                tools = await self.server.list_tools()
                self.tool_validators = validators({t.name: t.input_schema for t in tools})
            problem = tool_problem(
                self.tool_validators, params.get("name"), params.get("arguments")
            )
            if problem is not None:
                return await ctx.lifespan_context.carry(render.error_outcome(problem))
        elif ctx.method == "prompts/get":
            if self.prompt_arguments is None:
                self.prompt_arguments = {
                    p.name: [(a.name, bool(a.required)) for a in p.arguments or []]
                    for p in await self.server.list_prompts()
                }
            problem = prompt_problem(
                self.prompt_arguments, params.get("name"), params.get("arguments")
            )
            if problem is not None:
                shown = render.error_outcome(problem)
                raise MCPError(code=INVALID_PARAMS, message=shown.text, data=shown.data)
        return await call_next(ctx)


def _oracle_first() -> list[ModuleType]:
    """The family modules, the oracle's own tools (module ``oracle``) first."""
    return sorted(family_modules(), key=lambda module: module.__name__.rpartition(".")[2] != ORACLE)


def all_tools() -> tuple[ToolSpec, ...]:
    """The oracle's tools, then every other family's (see :mod:`oraculum.mcp.families`)."""
    return tuple(spec for module in _oracle_first() for spec in module.TOOLS)


def profile_tools(profile: str = DEFAULT_PROFILE) -> tuple[ToolSpec, ...]:
    """The tools of a capability profile (:mod:`oraculum.mcp.profiles`), oracle's first."""
    modules = _oracle_first()
    chosen = profile_families(profile, [module.FAMILY for module in modules])
    return tuple(spec for m in modules if m.FAMILY in chosen for spec in m.TOOLS)


def build_server(state: OracleMcp, profile: str = DEFAULT_PROFILE) -> MCPServer:
    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[OracleMcp]:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_watch, state)
            try:
                yield state
            finally:
                tasks.cancel_scope.cancel()

    server: MCPServer = MCPServer(
        name=NAME,
        version=VERSION,
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        subscriptions=state.bus,
    )
    server.middleware.append(ArgumentGuard(server))
    # A tool outside the profile is not even registered.
    register_tools(server, profile_tools(profile))
    server.prompt(
        name="oracle",
        title="Consult the oracle",
        description="Consult the oracle (ChatGPT / Grok web) about a request, as a background "
        "job: preflight, archive, submit, then stop until the wake-up.",
    )(oracle_prompt)
    server.prompt(
        name="oracle-followup",
        title="Follow up an oracle job",
        description="Continue a completed oracle job's thread with a new request.",
    )(oracle_followup_prompt)
    server.resource(
        JOB_URI,
        name="oracle-job",
        title="Oracle job",
        description="An oracle job's summary (status, phase, paths, wake-up state); reading it "
        "settles nothing. Subscribe to hear when the job ends.",
        mime_type="application/json",
    )(job_resource)
    server.resource(
        RESPONSE_URI,
        name="oracle-response",
        title="Oracle answer",
        description="An oracle job's saved response (Markdown).",
        mime_type="text/markdown",
    )(response_resource)
    server.resource(
        PRESETS_URI,
        name="oracle-presets",
        title="Oracle presets",
        description="The model presets oracle_submit accepts (the same as oracle_presets).",
        mime_type="application/json",
    )(presets_resource)
    return server


async def _watch(state: OracleMcp) -> None:
    while True:
        try:
            await state.announce()
        except Exception:  # logged, never fatal to the server
            log.exception("background wake-up scan failed")
        await anyio.sleep(state.poll_interval_s)


def run_stdio(
    *, session: str | None = None, cwd: Path | None = None, profile: str = DEFAULT_PROFILE
) -> None:
    """Serve on this process's stdin and stdout until the client closes them."""
    state = OracleMcp(session, cwd)
    state.start()
    try:
        build_server(state, profile).run("stdio")
    finally:
        state.stop()
