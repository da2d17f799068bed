"""The MCP server's per-process state (:class:`OracleMcp`) and the one way a tool runs.

Every family's tools (:mod:`oraculum.mcp.families`, the oracle's own among them) reach this
state as ``ctx.lifespan_context`` and run their operation with :func:`run_operation`; the result
carries the wake-ups due for the session (:meth:`OracleMcp.carry`). It is also a live host
process of its session: it holds the session's liveness file and notices finished jobs (it marks
their resource updated for subscribers and runs the notify hook). A wake-up itself only ever
reaches the agent inside a tool result, and it counts as delivered only once such a result has
been made; until then the job record keeps it due, so a server stopped in between leaves it to
the next one.
"""

from __future__ import annotations

import logging
import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import cast

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.server.subscriptions import InMemorySubscriptionBus
from mcp.shared.subscriptions import ResourceUpdated
from mcp.types import CallToolResult, TextContent

from oraculum.core.crashlog import surface_error
from oraculum.core.session import SESSION_ENV, validate_session_id
from oraculum.jobs.model import Job
from oraculum.mcp import render
from oraculum.mcp.families import family_modules
from oraculum.mcp.render import Outcome
from oraculum.service.caller import Caller
from oraculum.service.wait import advance_councils
from oraculum.sessions.liveness import SessionLiveness
from oraculum.sessions.poller import Poller
from oraculum.sessions.sinks import Sink, hook_sink
from oraculum.sessions.wakeup import Wakeup, build_notice_wakeup, build_wakeup
from oraculum.tasks import Notice

__all__ = ["JOB_URI", "OracleMcp", "run_operation", "state_of"]

log = logging.getLogger("oraculum.mcp")

JOB_URI = "oraculum://jobs/{job_id}"


class OracleMcp:
    """The server's per-process state: its project, its session, its poller."""

    def __init__(self, session: str | None, cwd: Path | None = None) -> None:
        configured = session or os.environ.get(SESSION_ENV) or None
        self.session_generated = configured is None
        # A stdio server serves one client conversation: without a configured id, this
        # process is the session (its jobs are adopted by a live session of the project later).
        self.session_id = validate_session_id(
            configured or f"mcp-{os.getpid()}-{secrets.token_hex(4)}"
        )
        # The server's own context, resolved once; each tool call gets a fresh one (`caller`).
        base = Caller(cwd=cwd, session=self.session_id)
        self.root, self.project_id, self.store = base.root, base.project_id, base.store
        config = base.config
        hook = config.notify.hook
        self.hook: Sink | None = (
            hook_sink(hook, timeout_s=config.notify.timeout_ms / 1000) if hook else None
        )
        self.poll_interval_s = config.poller.interval_ms / 1000
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

    def caller(self) -> Caller:
        """A tool call's context: this server's project, session and store. One per call, so
        a call reads the config files as they are now (as a CLI command does)."""
        return Caller(cwd=self.root, session=self.session_id, jobs=self.store)

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


def state_of(ctx: Context) -> OracleMcp:
    # The lifespan yields an OracleMcp; a bare Context's parameter defaults to dict[str, Any].
    return cast(OracleMcp, ctx.request_context.lifespan_context)


async def run_operation(
    ctx: Context, operation: str, call: Callable[[OracleMcp], Outcome]
) -> CallToolResult:
    """Run one tool's operation off the event loop (every family's tools run this way); any
    failure becomes the documented error."""
    state = state_of(ctx)
    try:
        outcome = await anyio.to_thread.run_sync(call, state)
    except Exception as exc:  # an unexpected one is `internal_error`, its traceback in a log
        outcome = render.error_outcome(surface_error(exc, surface=f"mcp {operation}"))
    return await state.carry(outcome)
