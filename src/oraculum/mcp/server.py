"""`oraculum mcp`: the oracle tools, prompts and resources over MCP (stdio, official SDK v2).

The server is a thin surface over :mod:`oraculum.service`. It is also a live host process of
its session: it holds the session's liveness file, polls for finished jobs in the background
and on every tool call, carries the wake-ups it claimed in the next tool result, and marks the
job's resource updated. No tool blocks for long: `oracle_wait` long-polls with progress
notifications and a bounded timeout.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.subscriptions import ResourceUpdated
from mcp.types import CallToolResult, TextContent

from oraculum import __version__
from oraculum.core.config import load_config
from oraculum.core.crashlog import surface_error
from oraculum.core.errors import OracleError
from oraculum.core.project import find_project_root, project_id
from oraculum.core.session import SESSION_ENV, validate_session_id
from oraculum.jobs.store import JobStore
from oraculum.mcp.prompts import FOLLOWUP_PROMPT, ORACLE_PROMPT
from oraculum.service.auth import auth
from oraculum.service.cancel import cancel
from oraculum.service.preflight import preflight, preflight_error
from oraculum.service.read import read
from oraculum.service.status import job_in_project, status
from oraculum.service.submit import submit
from oraculum.service.summary import job_summary
from oraculum.service.wait import wait
from oraculum.sessions.liveness import SessionLiveness
from oraculum.sessions.poller import Poller
from oraculum.sessions.sinks import Inbox, fan_out, hook_sink
from oraculum.sessions.wakeup import Wakeup

log = logging.getLogger("oraculum.mcp")

WAIT_DEFAULT_S = 50.0  # under Codex's 60 s default tool timeout
WAIT_MAX_S = 300.0
PROGRESS_EVERY_S = 2.0
JOB_URI = "oraculum://jobs/{job_id}"
RESPONSE_URI = "oraculum://jobs/{job_id}/response"

INSTRUCTIONS = """\
oraculum consults the ChatGPT / Grok web apps as durable background jobs.
Workflow: oracle_preflight first; then oracle_submit (returns at once with a job id); stop and \
wait for the completion wake-up, which arrives in a later oracle tool result, or long-poll \
with oracle_wait; then oracle_read. Answers are saved on disk and survive disconnects. \
Errors are tool errors carrying a code and a suggested next step."""


class OracleMcp:
    """The server's per-process state: its session, poller, pending wake-ups."""

    def __init__(self, session: str | None, cwd: Path | None = None) -> None:
        self.root = find_project_root(cwd)
        configured = session or os.environ.get(SESSION_ENV) or None
        self.session_generated = configured is None
        # A stdio server serves one client conversation: without a configured id, this
        # process is the session (its jobs are adopted by a live session of the project later).
        self.session_id = validate_session_id(
            configured or f"mcp-{os.getpid()}-{secrets.token_hex(4)}"
        )
        self.project_id = project_id(self.root)
        self.inbox = Inbox()
        self.updated: set[str] = set()
        config = load_config(self.root).config
        hook = config.notify.hook
        self.poll_interval_s = config.poller.interval_ms / 1000
        sink = fan_out(
            self._deliver,
            hook_sink(hook, timeout_s=config.notify.timeout_ms / 1000) if hook else None,
        )
        self.poller = Poller(self.project_id, self.session_id, sink)
        self.liveness: SessionLiveness | None = None
        self.legacy_session: Any = None  # the last client session seen, for legacy notifications

    def _deliver(self, wakeup: Wakeup) -> None:
        self.inbox(wakeup)
        self.updated.add(JOB_URI.format(job_id=wakeup.job_id))

    def start(self) -> None:
        self.liveness = SessionLiveness(self.project_id, self.session_id)

    def stop(self) -> None:
        self.poller.active = False
        if self.liveness is not None:
            self.liveness.close()

    def session_for(self, session_id: str | None) -> str:
        return validate_session_id(session_id) if session_id else self.session_id


async def _publish_updates(state: OracleMcp, server: MCPServer) -> None:
    uris, state.updated = state.updated, set()
    for uri in sorted(uris):
        with contextlib.suppress(Exception):
            await server._subscriptions.publish(ResourceUpdated(uri=uri))
        if state.legacy_session is not None:
            with contextlib.suppress(Exception):  # only subscribed legacy clients listen
                await state.legacy_session.send_resource_updated(uri)


async def _poll_forever(state: OracleMcp, server: MCPServer) -> None:
    while True:
        try:
            await anyio.to_thread.run_sync(state.poller.scan)
            await _publish_updates(state, server)
        except Exception:  # logged, never fatal to the server
            log.exception("background wake-up scan failed")
        await anyio.sleep(state.poll_interval_s)


def _text_of(data: dict[str, Any]) -> str:
    return data.get("message") or json.dumps(data, indent=2, ensure_ascii=False)


def build_server(state: OracleMcp) -> MCPServer:
    @asynccontextmanager
    async def lifespan(server: MCPServer) -> AsyncIterator[None]:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_poll_forever, state, server)
            try:
                yield None
            finally:
                tasks.cancel_scope.cancel()

    server: MCPServer = MCPServer(
        name="oraculum",
        version=__version__,
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
    )

    async def run_tool(
        ctx: Context,
        operation: str,
        call: Callable[[], dict[str, Any]],
        text: Callable[[dict[str, Any]], str] = _text_of,
        *,
        error_if: Callable[[dict[str, Any]], OracleError | None] | None = None,
    ) -> CallToolResult:
        """Run a service call off the event loop; carry pending wake-ups; map errors."""
        with contextlib.suppress(Exception):
            state.legacy_session = ctx.session
        try:
            data = await anyio.to_thread.run_sync(call)
            problem = error_if(data) if error_if else None
            if problem is not None:
                raise problem
            body = text(data)
            is_error = False
        except Exception as exc:  # unexpected: `internal_error` with a traceback log
            error = surface_error(exc, surface=f"mcp {operation}")
            data = {"error": error.to_dict()}
            body = f"[{error.code}] {error.message}"
            if error.suggested_next_step:
                body += f"\nSuggested next step: {error.suggested_next_step}"
            is_error = True
        # A check on every tool call: deliver what finished since the last scan.
        with contextlib.suppress(Exception):
            await anyio.to_thread.run_sync(state.poller.scan)
        pending = state.inbox.drain()
        if pending:
            data["pendingWakeups"] = [w.to_dict() for w in pending]
            body += "\n\nOracle wake-ups for this session:\n\n" + "\n\n".join(
                w.text for w in pending
            )
        await _publish_updates(state, server)
        return CallToolResult(
            content=[TextContent(type="text", text=body)],
            structured_content=data,
            is_error=is_error,
        )

    @server.tool(
        name="oracle_preflight",
        description="Check right away, before gathering any context, that this session can "
        "submit an oracle job: session, config, auth seed profile, browser, writable dirs, and "
        "global capacity. Pass provider 'grok' when the user asked for Grok, 'test' for a dry "
        "run; pass followUpJobId when preparing a follow-up. Changes nothing.",
    )
    async def oracle_preflight(
        ctx: Context,
        provider: str | None = None,
        followUpJobId: str | None = None,
        sessionId: str | None = None,
    ) -> CallToolResult:
        def call() -> dict[str, Any]:
            result = preflight(
                cwd=state.root,
                session=state.session_for(sessionId),
                provider=provider,
                follow_up_job=followUpJobId,
            )
            result["session"]["generated"] = state.session_generated and not sessionId
            return result

        return await run_tool(ctx, "oracle_preflight", call, error_if=preflight_error)

    @server.tool(
        name="oracle_submit",
        description="Archive project files and submit a prompt as a background oracle job; "
        "returns at once with the job id (it never waits for the answer). files: paths "
        "relative to the project root ('.' for the whole repository). preset: omit to use the "
        "configured default. After a successful or queued submit, stop and wait for the "
        "completion wake-up (or call oracle_wait). archive_too_large is retryable with a "
        "smaller selection: at most two submit attempts in total. Naming .git is refused "
        "unless includeGitDir is true (it uploads every committed secret).",
    )
    async def oracle_submit(
        ctx: Context,
        prompt: str,
        files: list[str],
        preset: str | None = None,
        provider: str | None = None,
        followUpJobId: str | None = None,
        conversationId: str | None = None,
        sessionId: str | None = None,
        includeGitDir: bool = False,
    ) -> CallToolResult:
        return await run_tool(
            ctx,
            "oracle_submit",
            lambda: submit(
                prompt,
                files,
                cwd=state.root,
                session=state.session_for(sessionId),
                preset=preset,
                provider=provider,
                follow_up_job=followUpJobId,
                conversation=conversationId,
                request_source="mcp",
                include_git_dir=includeGitDir,
            ),
        )

    def read_text(data: dict[str, Any]) -> str:
        job = data["job"]
        response = job["responsePath"] if job.get("responseAvailable") else "unavailable yet"
        lines = [
            f"job: {job['id']}",
            f"status: {job['status']} ({job['phase']})",
            f"response: {response}",
            f"artifacts: {job['artifactsPath']}",
        ]
        lines += [f"{key}: {value}" for key, value in data["gaps"].items()]
        if job.get("error"):
            lines.append(f"error: {job['error']}")
        if "recollection" in data:
            lines.append(data["recollection"]["message"])
        preview = data["response"].get("preview")
        if preview:
            lines += ["", preview]
            if data["response"].get("truncated"):
                lines.append(f"… (truncated; read {data['response']['path']} for the rest)")
        return "\n".join(lines)

    @server.tool(
        name="oracle_read",
        description="Read a job's status, saved response (first 4000 characters), paths, "
        "collection gaps and artifacts; defaults to the project's newest job. Reading a "
        "finished job settles its wake-up. action 'recollect' collects a completed job's "
        "answer again without sending anything.",
    )
    async def oracle_read(
        ctx: Context,
        jobId: str | None = None,
        action: str | None = None,
        sessionId: str | None = None,
    ) -> CallToolResult:
        return await run_tool(
            ctx,
            "oracle_read",
            lambda: read(
                jobId,
                cwd=state.root,
                session=state.session_for(sessionId),
                action=action,
                source="oracle_read",
            ),
            read_text,
        )

    def status_text(data: dict[str, Any]) -> str:
        if "job" in data:
            job = data["job"]
            return "\n".join(
                f"{key}: {value}"
                for key, value in job.items()
                if key not in ("selection", "lastEvent", "queue", "wakeup")
            )
        if not data["jobs"]:
            return "No oracle jobs found for this project."
        lines = ["Recent jobs: " + ", ".join(f"{j['id']} ({j['status']})" for j in data["jobs"])]
        return "\n".join(lines)

    @server.tool(
        name="oracle_status",
        description="One job's metadata, or this project's recent jobs with their ids when "
        "jobId is omitted.",
    )
    async def oracle_status(
        ctx: Context,
        jobId: str | None = None,
        sessionId: str | None = None,
    ) -> CallToolResult:
        return await run_tool(
            ctx,
            "oracle_status",
            lambda: status(jobId, cwd=state.root, limit=5, session=state.session_for(sessionId)),
            status_text,
        )

    @server.tool(
        name="oracle_cancel",
        description="Cancel a queued or running job. jobId is required: it never guesses; "
        "use oracle_status to find it.",
    )
    async def oracle_cancel(
        ctx: Context,
        jobId: str | None = None,
    ) -> CallToolResult:
        return await run_tool(ctx, "oracle_cancel", lambda: cancel(jobId, cwd=state.root))

    @server.tool(
        name="oracle_auth",
        description="Refresh the isolated browser's sign-in from the user's browser. Call it "
        "at most once per user request, only when a job or preflight said auth is missing or "
        "stale, then retry the blocked submission once; never loop.",
    )
    async def oracle_auth(ctx: Context, provider: str | None = None) -> CallToolResult:
        return await run_tool(ctx, "oracle_auth", lambda: auth(provider))

    @server.tool(
        name="oracle_wait",
        description="Long-poll until a job ends (or, without jobId, until the session's next "
        f"job ends), for at most timeoutSeconds (default {WAIT_DEFAULT_S:g}, max "
        f"{WAIT_MAX_S:g}); sends progress notifications while it waits. Returns done=false on "
        "timeout: the job keeps running, call again or stop and wait for the wake-up.",
    )
    async def oracle_wait(
        ctx: Context,
        jobId: str | None = None,
        timeoutSeconds: float = WAIT_DEFAULT_S,
        sessionId: str | None = None,
    ) -> CallToolResult:
        timeout = max(0.0, min(float(timeoutSeconds), WAIT_MAX_S))
        last = {"at": -PROGRESS_EVERY_S, "phase": None}

        async def report(event: dict[str, Any]) -> None:
            message = (
                f"oracle job {event['jobId']}: {event['phase']} ({event['elapsedSeconds']:g}s)"
                if "jobId" in event
                else f"waiting for this session's next oracle job ({event['elapsedSeconds']:g}s)"
            )
            with contextlib.suppress(Exception):
                await ctx.report_progress(event["elapsedSeconds"], timeout, message)

        def on_progress(event: dict[str, Any]) -> None:
            phase = event.get("phase")
            if phase == last["phase"] and event["elapsedSeconds"] - last["at"] < PROGRESS_EVERY_S:
                return
            last.update(at=event["elapsedSeconds"], phase=phase)
            anyio.from_thread.run(report, event)

        session_id = state.session_for(sessionId)
        own = session_id == state.session_id

        def call() -> dict[str, Any]:
            result = wait(
                jobId,
                cwd=state.root,
                session=session_id,
                timeout_s=timeout,
                poll_s=0.25,
                on_progress=on_progress,
                poller=state.poller if own else None,
                inbox=state.inbox if own else None,
            )
            if result["done"]:
                result["message"] = "\n\n".join(w["text"] for w in result["wakeups"])
            return result

        return await run_tool(ctx, "oracle_wait", call)

    @server.prompt(
        name="oracle",
        description="Consult the oracle (ChatGPT / Grok web) about REQUEST as a background job.",
    )
    def oracle_prompt(request: str) -> str:
        return ORACLE_PROMPT.format(request=request)

    @server.prompt(
        name="oracle-followup",
        description="Continue a completed oracle job's thread. Usage: oracle-followup "
        "jobId request.",
    )
    def oracle_followup_prompt(jobId: str, request: str) -> str:
        return FOLLOWUP_PROMPT.format(job_id=jobId, request=request)

    @server.resource(
        JOB_URI,
        name="oracle-job",
        description="An oracle job's summary (status, phase, paths, wake-up state).",
        mime_type="application/json",
    )
    def job_resource(job_id: str) -> str:
        # Looking at a resource is not reading the answer: it settles nothing.
        job = job_in_project(JobStore(), job_id, state.root)
        return json.dumps(job_summary(job), indent=2, ensure_ascii=False)

    @server.resource(
        RESPONSE_URI,
        name="oracle-response",
        description="An oracle job's saved response (Markdown).",
        mime_type="text/markdown",
    )
    def response_resource(job_id: str) -> str:
        job = job_in_project(JobStore(), job_id, state.root)
        path = Path(job.response_path)
        if not path.exists():
            return f"Response file: unavailable yet (job {job.id} is {job.status.value})."
        return path.read_text(encoding="utf-8", errors="replace")

    return server


def serve(*, session: str | None = None, cwd: Path | None = None) -> None:
    """Run the stdio server until the client closes it."""
    logging.basicConfig(level=logging.WARNING)  # stderr only: stdout is the protocol
    state = OracleMcp(session, cwd)
    state.start()
    try:
        build_server(state).run("stdio")
    finally:
        state.stop()
