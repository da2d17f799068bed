"""The Gemini page flow for one job (the shared lifecycle clones, launches and diagnoses).

verify the page (signed in) → choose the job's mode and verify it → attach the .tar.gz through
"Upload & tools" → type the prompt → send (not_sent → attempted → accepted) → adopt the
`/app/<id>` URL shown with this job's archive → wait for the reply after that user query →
collect it through Gemini's own capture root.
"""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import Page

from oraculum.capture.collect import CollectionResult, collect, recollect
from oraculum.core.config import Config, provider_urls
from oraculum.core.providers import GEMINI_MODES
from oraculum.jobs.model import Job, Phase, Status
from oraculum.jobs.store import JobPaths
from oraculum.providers.adoption import adopt_conversation_url
from oraculum.providers.base import ProviderOutcome, RecollectHooks, WorkerContext
from oraculum.providers.browser_job import (
    BrowserProvider,
    collection_hooks,
    collection_outcome,
    completion_context,
    conversation_patch,
    navigation_recorder,
    open_ready,
    send_recorded,
    watch_obstacles,
)
from oraculum.providers.completion import revival_context
from oraculum.providers.gemini import composer
from oraculum.providers.gemini.completion import wait_for_answer
from oraculum.providers.gemini.model import select_mode
from oraculum.providers.gemini.page import GeminiPage
from oraculum.providers.gemini.page_state import allowed_origins
from oraculum.providers.gemini.readiness import wait_until_ready


class GeminiProvider(BrowserProvider):
    """The Gemini page flow; the shared lifecycle (`providers.browser_job`) runs it."""

    page_view = GeminiPage

    async def drive(self, ctx: WorkerContext, page: Page) -> ProviderOutcome:
        gemini = GeminiPage(page)
        watch_obstacles(ctx, gemini)
        await self._verify(ctx, gemini)
        await ctx.enter_phase(Phase.CONFIGURING_MODEL)
        mode = ctx.job.selection.mode or GEMINI_MODES.ids[0]
        observed = await select_mode(gemini, mode, ctx.log)
        await ctx.record({"observed_selection": observed})
        await ctx.enter_phase(Phase.UPLOADING_ARCHIVE)
        archive = Path(ctx.job.archive_path)
        before = await self._send(ctx, gemini, archive)
        index = await self._await_answer(ctx, gemini, archive, before)
        await ctx.enter_phase(Phase.EXTRACTING_RESPONSE)
        return await self._collect(ctx, gemini, index)

    async def _verify(self, ctx: WorkerContext, gemini: GeminiPage) -> None:
        gemini_url, _ = provider_urls(ctx.config, "gemini")
        url = ctx.job.chat_url or gemini_url
        await open_ready(ctx, self, gemini, url, allowed_origins(gemini_url), wait_until_ready)

    async def _send(
        self, ctx: WorkerContext, gemini: GeminiPage, archive: Path
    ) -> composer.SendBaseline:
        worker = ctx.config.worker
        await composer.attach_archive(
            gemini, archive, timeout_s=worker.upload_timeout_ms / 1000, log=ctx.log
        )
        await composer.fill_prompt(gemini, ctx.prompt)
        await composer.wait_send_ready(gemini, timeout_s=worker.send_ready_timeout_ms / 1000)
        before = composer.SendBaseline.of(await gemini.turns())
        await send_recorded(
            ctx,
            "Gemini",
            lambda: composer.click_send(gemini),
            lambda: composer.wait_accepted(
                gemini, before, timeout_s=worker.send_accept_timeout_ms / 1000
            ),
        )
        return before

    async def _await_answer(
        self, ctx: WorkerContext, gemini: GeminiPage, archive: Path, before: composer.SendBaseline
    ) -> int:
        """Adopt the conversation proven by the archive, then wait for the reply bound to it;
        returns where that reply is among the replies."""
        worker = ctx.config.worker
        navigated = navigation_recorder(ctx)

        adopted = await adopt_conversation_url(
            gemini,
            archive.name,
            timeout_s=worker.url_verify_timeout_ms / 1000,
            log=ctx.log,
            on_navigation=navigated,
        )
        await ctx.enter_phase(Phase.AWAITING_RESPONSE, patch=conversation_patch(ctx.job, adopted))
        evidenced = adopted is None or adopted.verified
        answer = await wait_for_answer(
            gemini,
            completion_context(
                ctx, before.assistant_count, navigated, archive.name if evidenced else None
            ),
        )
        ctx.log(f"Gemini reply {answer.index} finished ({len(answer.text)} characters)")
        return answer.index

    async def recollect_page(
        self, page: Page, job: Job, paths: JobPaths, config: Config, *, hooks: RecollectHooks
    ) -> CollectionResult:
        gemini = GeminiPage(page)
        if job.status == Status.COMPLETE:
            return await recollect(
                page, job, paths, config, reopen=hooks.reopen, persist=hooks.persist
            )
        await wait_for_answer(gemini, revival_context(job, config, hooks.log))
        return await collect(
            page, job, paths, config, response_index=0, reopen=hooks.reopen, persist=hooks.persist
        )

    async def _collect(self, ctx: WorkerContext, gemini: GeminiPage, index: int) -> ProviderOutcome:
        reopen, persist = collection_hooks(ctx, gemini.page)
        # Gemini's own capture function reads the page (its registry entry's ``capture``).
        result = await collect(
            gemini.page,
            ctx.job,
            ctx.paths,
            ctx.config,
            response_index=index,
            reopen=reopen,
            persist=persist,
        )
        return await collection_outcome(ctx, result, view=gemini)
