"""The lifecycle every browser provider shares, so a provider writes only its page flow.

clone the provider's signed-in seed under the auth lock → launch Chromium on the clone → run the
provider's flow on its page → on any failure: diagnostics while the page still exists, a
precise code for a raw browser or network error, and the word on whether the prompt already
went out. The browser is always closed; the worker removes the clone.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from playwright.async_api import Page

from oraculum.browser.diagnostics import capture_diagnostics
from oraculum.browser.errors import classify_browser_error
from oraculum.browser.profile import clone_profile
from oraculum.browser.session import LaunchOptions, browser_on_profile
from oraculum.capture.collect import CollectionResult
from oraculum.capture.files import CAPTURE_JSON
from oraculum.core.config import seed_profile_dir
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.fsio import atomic_write_json
from oraculum.core.providers import conversation_id_from_url, provider_spec
from oraculum.jobs.locks import named_lock
from oraculum.jobs.model import EventKind, Job, Phase, PromptSendState
from oraculum.providers.base import AdoptedUrl, ProviderOutcome, WorkerContext, with_send_warning
from oraculum.providers.completion import CompletionContext
from oraculum.providers.obstacles import Dismissal
from oraculum.providers.page import ScriptedPage

AUTH_LOCK_TIMEOUT_S = 600.0
T = TypeVar("T")


class PageFlow(Protocol):
    """A provider's own part of a job: everything it does on its page."""

    async def drive(self, ctx: WorkerContext, page: Page) -> ProviderOutcome:
        """From a blank tab to the collected answer; raise OracleError on failure."""
        ...

    async def scoped_text(self, page: Page) -> str | None:
        """The page's text outside the conversation, for diagnostics (None: the whole body)."""
        ...


class BrowserProvider:
    """A provider whose job runs on one browser page: the shared lifecycle runs its
    :class:`PageFlow`; ``page_view`` wraps the Playwright page in its driver's view."""

    page_view: Any  # the provider's page class (ChatGPTPage, GrokPage), which has scoped_text()

    async def run(self, ctx: WorkerContext) -> ProviderOutcome:
        return await run_browser_job(ctx, self)

    async def scoped_text(self, page: Page) -> str | None:
        text: str | None = await self.page_view(page).scoped_text()
        return text

    async def drive(self, ctx: WorkerContext, page: Page) -> ProviderOutcome:
        raise NotImplementedError


def clone_seed_under_auth_lock(seed: Path, target: Path) -> str | None:
    """Clone a signed-in seed (never while auth rewrites it); returns its generation."""
    with named_lock("auth", timeout=AUTH_LOCK_TIMEOUT_S):
        return clone_profile(seed, target).seed_generation


async def diagnose(ctx: WorkerContext, flow: PageFlow, page: Page, reason: str) -> None:
    """Write what the page looks like (URL, accessibility tree, text, picture) to the job's
    logs; best-effort and time-bounded, never masking the real error."""
    if page.is_closed():
        ctx.log("no diagnostics: the page is gone")
        return
    try:
        scoped = await flow.scoped_text(page)
    except Exception:
        scoped = None
    written = await capture_diagnostics(page, ctx.paths.logs_dir, reason, scoped_text=scoped)
    ctx.log(f"diagnostics written: {', '.join(p.name for p in written)}")


async def _isolated_page(ctx: WorkerContext) -> contextlib.AbstractAsyncContextManager[Page]:
    """The isolated transport: clone the provider's seed, then launch Chromium on the clone."""
    spec = provider_spec(ctx.job.provider)
    await ctx.enter_phase(Phase.CLONING_RUNTIME)
    profile = Path(ctx.job.runtime_profile_dir)
    seed = seed_profile_dir(ctx.config, spec.name)
    if not seed.is_dir():
        raise OracleError(
            ErrorCode.AUTH_SEED_PROFILE_MISSING,
            f"The signed-in {spec.label} seed profile does not exist: {seed}. "
            f"Run `oraculum auth {spec.name}` first.",
            suggested_next_step=f"Run `oraculum auth {spec.name}`, then resubmit.",
        )
    generation = await asyncio.to_thread(clone_seed_under_auth_lock, seed, profile)
    await ctx.enter_phase(Phase.LAUNCHING_BROWSER, patch={"seed_generation": generation})
    return _first_page(profile, LaunchOptions.from_config(ctx.config))


@contextlib.asynccontextmanager
async def _first_page(profile: Path, options: LaunchOptions) -> AsyncIterator[Page]:
    async with browser_on_profile(profile, options) as browser:
        yield browser.pages[0] if browser.pages else await browser.new_page()


async def _job_page(ctx: WorkerContext) -> contextlib.AbstractAsyncContextManager[Page]:
    """The job's page on the configured transport (docs/transports.md): isolated clones and
    launches; managed and relay open a background tab in a browser that outlives the job."""
    if ctx.config.browser.transport == "isolated":
        return await _isolated_page(ctx)
    # Only an attached transport needs the DevTools client (aiohttp, ~0.2 s of a job's start).
    from oraculum.browser.transport import attached_page

    await ctx.enter_phase(Phase.LAUNCHING_BROWSER)
    return attached_page(ctx.config, ctx.log)


async def run_browser_job(ctx: WorkerContext, flow: PageFlow) -> ProviderOutcome:
    opened = await _job_page(ctx)
    try:
        async with opened as page:
            try:
                return await flow.drive(ctx, page)
            except Exception:
                await diagnose(ctx, flow, page, "failure")  # while the page still exists
                raise
    except Exception as exc:
        # A raw browser or network error (the provider went away mid-answer, Chromium died)
        # gets a precise code too, and the word on whether the prompt went out.
        error = with_send_warning(classify_browser_error(exc), ctx.job)
        if error is exc:
            raise
        raise error from exc


def conversation_patch(job: Job, adopted: AdoptedUrl | None) -> dict[str, Any]:
    """The conversation fields to record after send: the adopted URL, else a follow-up's own
    thread; neither is `conversation_url_missing`."""
    if adopted is not None:
        return {
            "chat_url": adopted.chat_url,
            "conversation_id": adopted.conversation_id,
            "chat_url_verified": adopted.verified,
        }
    if job.chat_url:
        return {"chat_url": job.chat_url, "conversation_id": job.conversation_id}
    label = provider_spec(job.provider).label
    raise OracleError(
        ErrorCode.CONVERSATION_URL_MISSING,
        f"{label} never showed a conversation URL for this job.",
        suggested_next_step=f"Check {label} for the conversation before resubmitting.",
    )


def watch_obstacles(ctx: WorkerContext, view: ScriptedPage) -> None:
    """Every obstacle the view's layer clears (or tries to) goes to the job's log and events."""
    view.obstacles.log = ctx.log

    async def recorded(dismissal: Dismissal) -> None:
        await ctx.record({}, message=f"Obstacle: {dismissal.describe()}.", kind=EventKind.OBSTACLE)

    view.obstacles.on_dismissal = recorded


def record_obstacles(job_dir: Path, dismissals: Sequence[Dismissal]) -> None:
    """The run's dismissals as the capture record's ``obstacles`` list (when one was written)."""
    path = job_dir / CAPTURE_JSON
    if not dismissals or not path.exists():
        return
    record = json.loads(path.read_text(encoding="utf-8"))
    record["obstacles"] = [d.to_json() for d in dismissals]
    atomic_write_json(path, record)


async def collection_outcome(
    ctx: WorkerContext, result: CollectionResult, note: str = "", view: ScriptedPage | None = None
) -> ProviderOutcome:
    """How a run ends once its answer was collected (``view``'s obstacles recorded). `complete`
    means saved: when nothing was saved (nothing, or no single turn, could be captured), the
    facts are recorded and the job fails with `answer_not_saved`, naming `read --recollect`
    (the answer is in the conversation; a recollection that saves it completes the job, and
    nothing is sent again)."""
    if view is not None:
        record_obstacles(ctx.paths.dir, view.obstacles.dismissals)
    gaps = result.gaps.all()
    ctx.log(f"collected: {result.status}{note}" + (f"; gaps: {', '.join(gaps)}" if gaps else ""))
    patch = {"generation_status": "completed", **result.patch}
    if result.response_text is not None:
        return ProviderOutcome(result.phase_hint, patch, "Job completed successfully.")
    next_step = f"oraculum read {ctx.job.id} --recollect"
    await ctx.record({**patch, "recollection_needed": True})
    label = provider_spec(ctx.job.provider).label
    reason = (result.error or "the turn held no answer text").rstrip(". ")
    raise OracleError(
        ErrorCode.ANSWER_NOT_SAVED,
        f"{label} finished the answer, but it could not be saved: {reason}. Nothing is "
        f"lost and nothing will be sent again: collect it with `{next_step}`.",
        suggested_next_step=f"Run `{next_step}`.",
        details={
            "generation_status": "completed",
            "collection_status": str(result.status),
            "gaps": gaps,
            "next_step": next_step,
        },
    )


async def open_ready(
    ctx: WorkerContext,
    flow: PageFlow,
    view: Any,
    url: str,
    origins: frozenset[str],
    wait_until_ready: Callable[..., Awaitable[None]],
) -> None:
    """Open ``url`` and wait until the provider's page is ready for a prompt (diagnostics
    written when it is not): the job's `verifying_auth` phase."""
    await view.page.goto(url)
    await ctx.enter_phase(Phase.VERIFYING_AUTH)

    async def failed_readiness(state: Any) -> None:
        ctx.log(f"page state {state.state}: {state.reason} {state.evidence}".rstrip())
        await diagnose(ctx, flow, view.page, "preflight")

    await wait_until_ready(
        view,
        origins,
        timeout_s=ctx.config.worker.readiness_timeout_ms / 1000,
        on_failure=failed_readiness,
        log=ctx.log,
    )


async def send_recorded(
    ctx: WorkerContext,
    label: str,
    click: Callable[[], Awaitable[object]],
    accepted: Callable[[], Awaitable[T]],
) -> T:
    """Click Send with the prompt's send state recorded around it: `attempted` just before the
    click (a crash after it must never resend), `accepted` once the page took the prompt."""
    await ctx.record(
        {"prompt_send_state": PromptSendState.ATTEMPTED}, message="Sending the prompt."
    )
    await click()
    result = await accepted()
    await ctx.record(
        {"prompt_send_state": PromptSendState.ACCEPTED}, message=f"{label} accepted the prompt."
    )
    return result


def navigation_recorder(ctx: WorkerContext) -> Callable[[str], Awaitable[None]]:
    """What a wait calls when the tab showed another page and is taken back to the job's."""

    async def navigated(away: str) -> None:
        await ctx.record(
            {},
            message=f"The tab showed another page ({away}); reopening the job's conversation.",
            kind=EventKind.NAVIGATION,
        )

    return navigated


def completion_context(
    ctx: WorkerContext,
    index: int,
    navigated: Callable[[str], Awaitable[None]],
    archive_name: str | None,
) -> CompletionContext:
    """How to wait for the job's answer after send (the completion wait ChatGPT's and Grok's
    drivers share): in the conversation recorded by now, at the worker's poll, timeout and
    stale-stop times; ``index`` is the answer's position counted before send and
    ``archive_name`` binds it to the user turn that shows the archive (None: by position)."""
    job, worker = ctx.job, ctx.config.worker
    chat_url = job.chat_url or ""
    return CompletionContext(
        conversation_id=job.conversation_id or conversation_id_from_url(chat_url) or "",
        chat_url=chat_url,
        index=index,
        poll_s=worker.poll_ms / 1000,
        timeout_s=worker.completion_timeout_ms / 1000,
        stale_stop_s=worker.stale_stop_ms / 1000,
        log=ctx.log,
        on_navigation=navigated,
        archive_name=archive_name,
        quiet_s=worker.completion_quiet_ms / 1000,
    )


def collection_hooks(
    ctx: WorkerContext, page: Page
) -> tuple[Callable[[], Awaitable[None]], Callable[[dict[str, Any]], Awaitable[Job]]]:
    """How a collection reopens the job's conversation and records what it found."""
    chat_url = ctx.job.chat_url or ""

    async def reopen() -> None:
        await page.goto(chat_url)

    async def persist(patch: dict[str, Any]) -> Job:
        return await ctx.record(patch)

    return reopen, persist
