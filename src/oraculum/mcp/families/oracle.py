"""The oracle's own tools: `oracle_preflight|submit|read|status|cancel|auth|wait|presets`.

Each tool runs one service operation (:mod:`oraculum.service`) and words its result with
:mod:`oraculum.mcp.render`. No tool blocks for long: `oracle_wait` returns within 50 s (hosts
time requests out at 60 s). A council id given to status, read, wait or cancel is the council
family's (:mod:`oraculum.mcp.families.council`).
"""

from __future__ import annotations

import contextlib
from functools import partial
from typing import Annotated, Any

import anyio.from_thread
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult

from oraculum.jobs.ids import is_council_ref
from oraculum.mcp import prompts, render
from oraculum.mcp.families.council import council_outcome
from oraculum.mcp.profiles import ORACLE
from oraculum.mcp.render import Outcome
from oraculum.mcp.schemas import (
    OUTWARD_HINTS,
    READ_ONLY_HINTS,
    STOP_HINTS,
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
from oraculum.mcp.state import OracleMcp, run_operation
from oraculum.mcp.toolkit import ToolSpec
from oraculum.service.cancel import cancel
from oraculum.service.dryrun import DryRunResult, dry_run
from oraculum.service.preflight import preflight
from oraculum.service.presets import presets
from oraculum.service.read import read
from oraculum.service.status import status
from oraculum.service.submit import SubmitResult, research_answer_extras, submit
from oraculum.service.wait import wait
from oraculum.sessions.wakeup import wakeup_text

__all__ = [
    "FAMILY",
    "TOOLS",
    "oracle_auth",
    "oracle_cancel",
    "oracle_preflight",
    "oracle_presets",
    "oracle_read",
    "oracle_status",
    "oracle_submit",
    "oracle_wait",
]

FAMILY = ORACLE
WAIT_DEFAULT_S = 45.0
WAIT_MAX_S = 50.0  # common hosts (pi, Claude Desktop, the Inspector) time a request out at 60 s
PROGRESS_EVERY_S = 2.0


def _council(ref: str | None, action: Any, *, timeout_s: float = 50.0) -> Outcome:
    """A council id given to oracle_status, oracle_read, oracle_wait or oracle_cancel."""
    return council_outcome(ref or "", action, timeout_s=timeout_s)


async def oracle_preflight(
    ctx: Context, provider: ProviderArg = None, followUpJobId: FollowUpArg = None
) -> Annotated[CallToolResult, PreflightOutput]:
    """Check right away, before gathering any context, that this session can submit an oracle
    job: session, config, auth seed profile, browser, writable dirs and global capacity. Pass
    followUpJobId when preparing a follow-up. Changes nothing; a blocker is a tool error."""

    def call(state: OracleMcp) -> Outcome:
        report = preflight(caller=state.caller(), provider=provider, follow_up_job=followUpJobId)
        problem = report.blocker()
        if problem is not None:
            raise problem
        return render.preflight_outcome(report, generated=state.session_generated)

    return await run_operation(ctx, "oracle_preflight", call)


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
            caller=state.caller(),
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

    return await run_operation(ctx, "oracle_submit", call)


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
        result = read(jobId, caller=state.caller(), action=action, source="oracle_read")
        return render.read_outcome(result)

    return await run_operation(ctx, "oracle_read", call)


async def oracle_status(
    ctx: Context, jobId: JobIdArg = None
) -> Annotated[CallToolResult, StatusOutput]:
    """One job's metadata, or this project's recent jobs (ids, status) when jobId is
    omitted."""

    def call(state: OracleMcp) -> Outcome:
        if is_council_ref(jobId):
            return _council(jobId, "status")
        result = status(jobId, caller=state.caller(), limit=5)
        return render.status_outcome(result)

    return await run_operation(ctx, "oracle_status", call)


async def oracle_cancel(
    ctx: Context,
    jobId: Annotated[str, arg("Job id", "The job to cancel (never guessed; see oracle_status).")],
) -> Annotated[CallToolResult, CancelOutput]:
    """Cancel a queued or running job."""

    def call(state: OracleMcp) -> Outcome:
        if is_council_ref(jobId):
            return _council(jobId, "cancel")
        return render.cancel_outcome(cancel(jobId, caller=state.caller()))

    return await run_operation(ctx, "oracle_cancel", call)


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

        return render.auth_outcome(auth(provider, caller=state.caller()))

    return await run_operation(ctx, "oracle_auth", call)


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
            caller=state.caller(),
            timeout_s=timeout,
            poll_s=0.25,
            on_progress=on_progress,
            host=state.poller,
        )
        text = None
        if result.done and result.job is None:  # a background task's notice is due
            return render.wait_outcome(result, "A background task's notice arrived.")
        if result.done and result.job is not None:
            job = state.store.load(result.job["id"])
            text = wakeup_text(job, state.store, "mcp")
        return render.wait_outcome(result, text)

    return await run_operation(ctx, "oracle_wait", call)


async def oracle_presets(ctx: Context) -> Annotated[CallToolResult, PresetsOutput]:
    """List the model presets oracle_submit accepts (ChatGPT presets and Grok modes)."""
    return await run_operation(
        ctx, "oracle_presets", lambda _state: render.presets_outcome(presets())
    )


TOOLS = (
    ToolSpec(oracle_preflight, "Check oracle readiness", READ_ONLY_HINTS),
    ToolSpec(oracle_submit, "Submit an oracle job", OUTWARD_HINTS),
    ToolSpec(
        oracle_read,
        "Read an oracle answer",
        hints(read_only=False, destructive=False, idempotent=True, open_world=True),
    ),
    ToolSpec(oracle_status, "Oracle job status", READ_ONLY_HINTS),
    ToolSpec(oracle_cancel, "Cancel an oracle job", STOP_HINTS),
    ToolSpec(oracle_auth, "Sign the oracle browser in", OUTWARD_HINTS),
    ToolSpec(oracle_wait, "Wait for an oracle job", READ_ONLY_HINTS),
    ToolSpec(oracle_presets, "List oracle presets", READ_ONLY_HINTS),
)
