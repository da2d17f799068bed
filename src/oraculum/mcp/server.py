"""`oraculum mcp`: the oracle tools, prompts and resources over MCP (official SDK v2).

The server is a thin surface over :mod:`oraculum.service`: each tool is a module-level function
that runs one service operation off the event loop and words its result with
:mod:`oraculum.mcp.render`. It is also a live host process of its session: it holds the
session's liveness file and, in the background, notices finished jobs (it marks their resource
updated for subscribers and runs the notify hook). A wake-up itself only ever reaches the agent
inside a tool result, and it counts as delivered only once such a result has been made; until
then the job record keeps it due, so a server stopped in between leaves it to the next one.
No tool blocks for long: `oracle_wait` returns within 50 s (hosts time requests out at 60 s).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Annotated, Any, cast

import anyio
import anyio.from_thread
import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.subscriptions import InMemorySubscriptionBus
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ResourceUpdated
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS, CallToolResult, TextContent
from pydantic import Field

from oraculum.core.config import load_config
from oraculum.core.crashlog import surface_error
from oraculum.core.errors import ErrorCode
from oraculum.core.project import find_project_root, project_id
from oraculum.core.session import SESSION_ENV, validate_session_id
from oraculum.jobs.ids import is_council_ref
from oraculum.jobs.model import Job
from oraculum.jobs.store import JobStore
from oraculum.mcp import prompts, render
from oraculum.mcp.arguments import prompt_problem, tool_problem, validators
from oraculum.mcp.families import family_modules
from oraculum.mcp.identity import INSTRUCTIONS, NAME, VERSION
from oraculum.mcp.profiles import DEFAULT_PROFILE, ORACLE, profile_families
from oraculum.mcp.render import Outcome
from oraculum.mcp.schemas import (
    AllowAnyDirArg,
    AuthOutput,
    CancelOutput,
    ConversationArg,
    DryRunArg,
    FilesArg,
    FollowUpArg,
    ForceArg,
    IncludeGitDirArg,
    JobIdArg,
    JobOutput,
    PreflightOutput,
    PresetArg,
    PresetsOutput,
    PromptArg,
    ProviderArg,
    ReadActionArg,
    ReadOutput,
    RealProvider,
    ResearchAnswerArg,
    StatusOutput,
    WaitOutput,
    arg,
    hints,
)
from oraculum.mcp.toolkit import ToolSpec, register_tools
from oraculum.service.cancel import cancel
from oraculum.service.dryrun import DryRunResult, dry_run
from oraculum.service.preflight import preflight
from oraculum.service.presets import presets
from oraculum.service.read import read
from oraculum.service.status import job_in_project, status
from oraculum.service.submit import SubmitResult, research_answer_extras, submit
from oraculum.service.summary import job_summary
from oraculum.service.wait import advance_councils, wait
from oraculum.sessions.liveness import SessionLiveness
from oraculum.sessions.poller import Poller
from oraculum.sessions.sinks import Sink, hook_sink
from oraculum.sessions.wakeup import Wakeup, build_notice_wakeup, build_wakeup, wakeup_text
from oraculum.tasks import Notice

log = logging.getLogger("oraculum.mcp")

WAIT_DEFAULT_S = 45.0
WAIT_MAX_S = 50.0  # common hosts (pi, Claude Desktop, the Inspector) time a request out at 60 s
PROGRESS_EVERY_S = 2.0
JOB_URI = "oraculum://jobs/{job_id}"
RESPONSE_URI = "oraculum://jobs/{job_id}/response"
PRESETS_URI = "oraculum://presets"
RESOURCE_NOT_FOUND = -32002  # the MCP spec's code for an unknown resource


class OracleMcp:
    """The server's per-process state: its project, its session, its poller."""

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
        config = load_config(self.root).config
        hook = config.notify.hook
        self.hook: Sink | None = (
            hook_sink(hook, timeout_s=config.notify.timeout_ms / 1000) if hook else None
        )
        self.poll_interval_s = config.poller.interval_ms / 1000
        self.store = JobStore()
        self.poller = Poller(
            self.project_id,
            self.session_id,
            _results_only,
            store=self.store,
            surface="mcp",
            after_reconcile=advance_councils,
        )
        self.bus = InMemorySubscriptionBus()  # `subscriptions/listen` streams filter by URI
        self.announced: set[tuple[str, int]] = set()  # (job, attempt) already announced
        # Concurrent tool calls share this process's claimant: one result at a time claims,
        # shows and counts wake-ups, so two results never carry the same one.
        self.carrying = anyio.Lock()
        self.liveness: SessionLiveness | None = None
        # A bridge runs each tool call in its own short process: whatever must outlive the call
        # (managed processes) goes to the session's supervisor instead of this process.
        self.per_call = False

    def start(self) -> None:
        self.liveness = SessionLiveness(self.project_id, self.session_id)

    def stop(self) -> None:
        self.poller.active = False
        try:
            for module in family_modules():
                shutdown = getattr(module, "shutdown", None)
                if shutdown is not None:
                    try:
                        shutdown(self)
                    except Exception:  # one family's cleanup must not skip the others'
                        log.exception("stopping the %s tools failed", module.FAMILY)
        finally:
            if self.liveness is not None:
                self.liveness.close()

    async def announce(self) -> None:
        """Tell subscribers and the hook about each finished job of this session, once per
        attempt: the wake-up itself waits for the agent's next tool result."""
        due = await anyio.to_thread.run_sync(self.poller.pending)
        for job in due:  # finished jobs and background tasks' notices
            attempts = job.attempt_count if isinstance(job, Notice) else job.wakeup_attempt_count
            key = (job.id, attempts)
            if key in self.announced:
                continue
            self.announced.add(key)
            if isinstance(job, Job):
                await self.bus.publish(ResourceUpdated(uri=JOB_URI.format(job_id=job.id)))
            if self.hook is not None:
                await anyio.to_thread.run_sync(self.hook, self._hook_wakeup(job))

    def _hook_wakeup(self, job: Job | Notice) -> Wakeup:
        if isinstance(job, Notice):
            attempt = job.attempt_count + 1
            return build_notice_wakeup(job, session_id=self.session_id, attempt=attempt)
        attempt = job.wakeup_attempt_count + 1
        return build_wakeup(job, self.store, session_id=self.session_id, attempt=attempt)

    async def carry(self, outcome: Outcome) -> CallToolResult:
        """The tool result for ``outcome``, carrying the wake-ups due for this session; they
        count as delivered once the result is made, and stay due if it is not."""
        async with self.carrying:
            wakeups = await anyio.to_thread.run_sync(self._collect)
            try:
                text, data = render.compose(outcome, wakeups)
                result = CallToolResult(
                    content=[TextContent(type="text", text=text)],
                    structured_content=data,
                    is_error=outcome.is_error,
                )
            except BaseException:
                await self._settle(wakeups, delivered=False)
                raise
            await self._settle(wakeups, delivered=True)
        return result

    def _collect(self) -> list[Wakeup]:
        try:
            return self.poller.collect()
        except Exception:  # a wake-up problem never fails the tool call that would carry it
            log.exception("collecting wake-ups failed")
            return []

    async def _settle(self, wakeups: list[Wakeup], *, delivered: bool) -> None:
        if not wakeups:
            return
        with anyio.CancelScope(shield=True):  # a cancelled call still releases its claims
            await anyio.to_thread.run_sync(self._settle_now, wakeups, delivered)

    def _settle_now(self, wakeups: list[Wakeup], delivered: bool) -> None:
        for wakeup in wakeups:
            try:
                if delivered:
                    self.poller.commit(wakeup)
                else:
                    self.poller.abandon(wakeup)
            except Exception:
                log.exception("recording the wake-up of %s failed", wakeup.job_id)


def _results_only(wakeup: Wakeup) -> None:
    """The poller's sink: never used, since this server shows wake-ups only in tool results."""
    raise RuntimeError(f"wake-up {wakeup.job_id} must be carried by a tool result")


def _state(ctx: Context) -> OracleMcp:
    # The lifespan yields an OracleMcp; a bare Context's parameter defaults to dict[str, Any].
    return cast(OracleMcp, ctx.request_context.lifespan_context)


async def _run(
    ctx: Context, operation: str, call: Callable[[OracleMcp], Outcome]
) -> CallToolResult:
    """Run one operation off the event loop; any failure becomes the documented error."""
    state = _state(ctx)
    try:
        outcome = await anyio.to_thread.run_sync(call, state)
    except Exception as exc:  # an unexpected one is `internal_error`, its traceback in a log
        outcome = render.error_outcome(surface_error(exc, surface=f"mcp {operation}"))
    return await state.carry(outcome)


# Tool families (oraculum.mcp.families) run their operations the same way.
run_operation = _run


def _council(ref: str | None, action: Any, *, timeout_s: float = 50.0) -> Outcome:
    """A council id given to oracle_status, oracle_read, oracle_wait or oracle_cancel."""
    from oraculum.mcp.families.council import council_outcome  # imports this module

    return council_outcome(ref or "", action, timeout_s=timeout_s)


async def oracle_preflight(
    ctx: Context, provider: ProviderArg = None, followUpJobId: FollowUpArg = None
) -> Annotated[CallToolResult, PreflightOutput]:
    """Check right away, before gathering any context, that this session can submit an oracle
    job: session, config, auth seed profile, browser, writable dirs and global capacity. Pass
    followUpJobId when preparing a follow-up. Changes nothing; a blocker is a tool error."""

    def call(state: OracleMcp) -> Outcome:
        report = preflight(
            cwd=state.root, session=state.session_id, provider=provider, follow_up_job=followUpJobId
        )
        problem = report.blocker()
        if problem is not None:
            raise problem
        return render.preflight_outcome(report, generated=state.session_generated)

    return await _run(ctx, "oracle_preflight", call)


async def oracle_submit(
    ctx: Context,
    prompt: PromptArg,
    files: FilesArg,
    preset: PresetArg = None,
    provider: ProviderArg = None,
    followUpJobId: FollowUpArg = None,
    conversationId: ConversationArg = None,
    includeGitDir: IncludeGitDirArg = False,
    researchAnswer: ResearchAnswerArg = None,
    allowAnyDir: AllowAnyDirArg = False,
    dryRun: DryRunArg = False,
    force: ForceArg = False,
) -> Annotated[CallToolResult, JobOutput]:
    """Archive project files and submit a prompt as a background oracle job; returns at once
    with the job id (it never waits for the answer). After a successful or queued submit, stop:
    the completion wake-up arrives in a later oracle tool result (or call oracle_wait).
    archive_too_large is retryable with a smaller selection: at most two submit attempts.
    dryRun shows what would be sent without sending; duplicate_job names an identical job
    already queued or running (wait for it; force: true sends again)."""

    def call(state: OracleMcp) -> Outcome:
        # The same request either way; a dry run only says what it would send.
        send = partial(dry_run) if dryRun else partial(submit, request_source="mcp", force=force)
        result: SubmitResult | DryRunResult = send(
            prompt,
            files,
            cwd=state.root,
            session=state.session_id,
            preset=preset,
            provider=provider,
            follow_up_job=followUpJobId,
            conversation=conversationId,
            include_git_dir=includeGitDir,
            allow_any_dir=allowAnyDir,
            selection_extras=research_answer_extras(researchAnswer),
        )
        if isinstance(result, DryRunResult):
            return render.dry_run_outcome(result)
        # Through the pi bridge (one process per call) the wake-up starts a turn of its own.
        wakeup = prompts.BRIDGE_WAKEUP if state.per_call else None
        return render.submit_outcome(result, wakeup=wakeup)

    return await _run(ctx, "oracle_submit", call)


async def oracle_read(
    ctx: Context,
    jobId: JobIdArg = None,
    action: ReadActionArg = None,
) -> Annotated[CallToolResult, ReadOutput]:
    """Read a job's status and saved answer (first 4000 characters; the file path has all),
    collection gaps and artifacts; defaults to the project's newest job. Reading a finished
    job settles its wake-up (no more reminders)."""

    def call(state: OracleMcp) -> Outcome:
        if is_council_ref(jobId):
            return _council(jobId, "read")
        result = read(
            jobId, cwd=state.root, session=state.session_id, action=action, source="oracle_read"
        )
        return render.read_outcome(result)

    return await _run(ctx, "oracle_read", call)


async def oracle_status(
    ctx: Context, jobId: JobIdArg = None
) -> Annotated[CallToolResult, StatusOutput]:
    """One job's metadata, or this project's recent jobs (ids, status) when jobId is
    omitted."""

    def call(state: OracleMcp) -> Outcome:
        if is_council_ref(jobId):
            return _council(jobId, "status")
        result = status(jobId, cwd=state.root, limit=5, session=state.session_id)
        return render.status_outcome(result)

    return await _run(ctx, "oracle_status", call)


async def oracle_cancel(
    ctx: Context,
    jobId: Annotated[str, arg("Job id", "The job to cancel (never guessed; see oracle_status).")],
) -> Annotated[CallToolResult, CancelOutput]:
    """Cancel a queued or running job."""

    def call(state: OracleMcp) -> Outcome:
        if is_council_ref(jobId):
            return _council(jobId, "cancel")
        return render.cancel_outcome(cancel(jobId))

    return await _run(ctx, "oracle_cancel", call)


async def oracle_auth(
    ctx: Context,
    provider: Annotated[
        RealProvider | None, arg("Provider", "The provider to sign in (default chatgpt).")
    ] = None,
) -> Annotated[CallToolResult, AuthOutput]:
    """Refresh the isolated browser's sign-in from the user's browser. Call it at most once per
    user request, only when a job or preflight said auth is missing or stale, then retry the
    blocked submission once; never loop."""

    def call(state: OracleMcp) -> Outcome:
        from oraculum.service.auth import auth  # the browser driver loads only for this tool

        return render.auth_outcome(auth(provider, cwd=state.root))

    return await _run(ctx, "oracle_auth", call)


class _ProgressReporter:
    """Turns a wait's progress events (from its worker thread) into MCP progress
    notifications: one per phase change, and at most one per ``PROGRESS_EVERY_S`` otherwise."""

    def __init__(self, ctx: Context, timeout_s: float) -> None:
        self.ctx = ctx
        self.timeout_s = timeout_s
        self.last_at = -PROGRESS_EVERY_S
        self.last_phase: str | None = None

    def __call__(self, event: dict[str, Any]) -> None:
        phase = event.get("phase")
        elapsed = event["elapsedSeconds"]
        if phase == self.last_phase and elapsed - self.last_at < PROGRESS_EVERY_S:
            return
        self.last_at, self.last_phase = elapsed, phase
        anyio.from_thread.run(self._report, event)

    async def _report(self, event: dict[str, Any]) -> None:
        message = (
            f"oracle job {event['jobId']}: {event['phase']} ({event['elapsedSeconds']:g}s)"
            if "jobId" in event
            else f"waiting for this session's next oracle job ({event['elapsedSeconds']:g}s)"
        )
        with contextlib.suppress(Exception):
            await self.ctx.report_progress(event["elapsedSeconds"], self.timeout_s, message)


async def oracle_wait(
    ctx: Context,
    jobId: Annotated[
        str | None,
        arg(
            "Job id",
            "The job to wait for (id or unique prefix); omit to wait for this session's next "
            "finished job.",
        ),
    ] = None,
    timeoutSeconds: Annotated[
        float,
        arg(
            "Timeout (seconds)",
            f"Return after at most this long (default {WAIT_DEFAULT_S:g}, max {WAIT_MAX_S:g}): "
            "hosts time requests out at 60 s. The job keeps running; call again.",
            ge=0,
            le=WAIT_MAX_S,
        ),
    ] = WAIT_DEFAULT_S,
) -> Annotated[CallToolResult, WaitOutput]:
    """Long-poll until a job ends (or, without jobId, until this session's next job ends), for
    at most timeoutSeconds; sends progress notifications while it waits. done=false when time
    runs out: the job keeps running, so call again or stop and wait for the wake-up."""
    timeout = max(0.0, min(float(timeoutSeconds), WAIT_MAX_S))
    on_progress = _ProgressReporter(ctx, timeout)

    def call(state: OracleMcp) -> Outcome:
        if is_council_ref(jobId):
            return _council(jobId, "wait", timeout_s=timeout)
        result = wait(
            jobId,
            cwd=state.root,
            session=state.session_id,
            timeout_s=timeout,
            poll_s=0.25,
            on_progress=on_progress,
            host=state.poller,
            store=state.store,
        )
        text = None
        if result.done and result.job is None:  # a background task's notice is due
            return render.wait_outcome(result, "A background task's notice arrived.")
        if result.done and result.job is not None:
            job = state.store.load(result.job["id"])
            text = wakeup_text(job, state.store, "mcp")
        return render.wait_outcome(result, text)

    return await _run(ctx, "oracle_wait", call)


async def oracle_presets(ctx: Context) -> Annotated[CallToolResult, PresetsOutput]:
    """List the model presets oracle_submit accepts (ChatGPT presets and Grok modes)."""
    return await _run(ctx, "oracle_presets", lambda _state: render.presets_outcome(presets()))


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        oracle_preflight,
        "Check oracle readiness",
        hints(read_only=True, destructive=False, idempotent=True, open_world=False),
    ),
    ToolSpec(
        oracle_submit,
        "Submit an oracle job",
        hints(read_only=False, destructive=False, idempotent=False, open_world=True),
    ),
    ToolSpec(
        oracle_read,
        "Read an oracle answer",
        hints(read_only=False, destructive=False, idempotent=True, open_world=True),
    ),
    ToolSpec(
        oracle_status,
        "Oracle job status",
        hints(read_only=True, destructive=False, idempotent=True, open_world=False),
    ),
    ToolSpec(
        oracle_cancel,
        "Cancel an oracle job",
        hints(read_only=False, destructive=True, idempotent=True, open_world=False),
    ),
    ToolSpec(
        oracle_auth,
        "Sign the oracle browser in",
        hints(read_only=False, destructive=False, idempotent=False, open_world=True),
    ),
    ToolSpec(
        oracle_wait,
        "Wait for an oracle job",
        hints(read_only=True, destructive=False, idempotent=True, open_world=False),
    ),
    ToolSpec(
        oracle_presets,
        "List oracle presets",
        hints(read_only=True, destructive=False, idempotent=True, open_world=False),
    ),
)


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
        job = job_in_project(JobStore(), job_id, _state(ctx).root)
        return json.dumps(job_summary(job), indent=2, ensure_ascii=False)
    except Exception as exc:
        raise _resource_error(exc, uri) from None


def response_resource(job_id: str, ctx: Context) -> str:
    uri = RESPONSE_URI.format(job_id=job_id)
    try:
        job = job_in_project(JobStore(), job_id, _state(ctx).root)
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


def all_tools() -> tuple[ToolSpec, ...]:
    """The oracle's tools, then every family's (see :mod:`oraculum.mcp.families`)."""
    return TOOLS + tuple(spec for module in family_modules() for spec in module.TOOLS)


def profile_tools(profile: str = DEFAULT_PROFILE) -> tuple[ToolSpec, ...]:
    """The tools of a capability profile (:mod:`oraculum.mcp.profiles`), oracle's first."""
    modules = family_modules()
    chosen = profile_families(profile, [module.FAMILY for module in modules])
    oracle = TOOLS if ORACLE in chosen else ()
    return oracle + tuple(spec for m in modules if m.FAMILY in chosen for spec in m.TOOLS)


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
