"""The Grok Heavy page flow for one job (the shared lifecycle clones, launches and diagnoses).

verify the page → select Heavy and verify it → attach the .tar.gz → type the prompt → send
(not_sent → attempted → accepted) → adopt the conversation URL shown with this job's archive →
wait for the reply after that user message → collect it through Grok's own capture root.
"""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import Page

from oraculum.capture.collect import CollectionResult, collect, recollect
from oraculum.core.config import Config, provider_urls
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
from oraculum.providers.grok import composer
from oraculum.providers.grok.completion import wait_for_answer
from oraculum.providers.grok.model import select_heavy
from oraculum.providers.grok.page import GrokPage
from oraculum.providers.grok.page_state import allowed_origins
from oraculum.providers.grok.readiness import wait_until_ready


class GrokProvider(BrowserProvider):
    """The Grok page flow; the shared lifecycle (`providers.browser_job`) runs it."""

    page_view = GrokPage

    async def drive(self, ctx: WorkerContext, page: Page) -> ProviderOutcome:
        grok = GrokPage(page)
        watch_obstacles(ctx, grok)
        await self._verify(ctx, grok)
        await ctx.enter_phase(Phase.CONFIGURING_MODEL)
        observed = await select_heavy(grok, ctx.log)
        await ctx.record({"observed_selection": observed})
        await ctx.enter_phase(Phase.UPLOADING_ARCHIVE)
        archive = Path(ctx.job.archive_path)
        before = await self._send(ctx, grok, archive)
        index = await self._await_answer(ctx, grok, archive, before)
        await ctx.enter_phase(Phase.EXTRACTING_RESPONSE)
        return await self._collect(ctx, grok, index)

    async def _verify(self, ctx: WorkerContext, grok: GrokPage) -> None:
        grok_url, _ = provider_urls(ctx.config, "grok")
        url = ctx.job.chat_url or grok_url
        await open_ready(ctx, self, grok, url, allowed_origins(grok_url), wait_until_ready)

    async def _send(
        self, ctx: WorkerContext, grok: GrokPage, archive: Path
    ) -> composer.SendBaseline:
        worker = ctx.config.worker
        await composer.attach_archive(
            grok, archive, timeout_s=worker.upload_timeout_ms / 1000, log=ctx.log
        )
        await composer.fill_prompt(grok, ctx.prompt)
        await composer.wait_send_ready(grok, timeout_s=worker.send_ready_timeout_ms / 1000)
        before = composer.SendBaseline.of(await grok.turns())
        await send_recorded(
            ctx,
            "Grok",
            lambda: composer.click_send(grok),
            lambda: composer.wait_accepted(
                grok, before, timeout_s=worker.send_accept_timeout_ms / 1000
            ),
        )
        return before

    async def _await_answer(
        self, ctx: WorkerContext, grok: GrokPage, archive: Path, before: composer.SendBaseline
    ) -> int:
        """Adopt the conversation proven by the archive, then wait for the reply bound to it;
        returns where that reply is among the replies."""
        worker = ctx.config.worker
        navigated = navigation_recorder(ctx)

        adopted = await adopt_conversation_url(
            grok,
            archive.name,
            timeout_s=worker.url_verify_timeout_ms / 1000,
            log=ctx.log,
            on_navigation=navigated,
        )
        await ctx.enter_phase(Phase.AWAITING_RESPONSE, patch=conversation_patch(ctx.job, adopted))
        evidenced = adopted is None or adopted.verified
        answer = await wait_for_answer(
            grok,
            completion_context(
                ctx, before.assistant_count, navigated, archive.name if evidenced else None
            ),
        )
        ctx.log(f"Grok reply {answer.index} finished ({len(answer.text)} characters)")
        return answer.index

    async def recollect_page(
        self, page: Page, job: Job, paths: JobPaths, config: Config, *, hooks: RecollectHooks
    ) -> CollectionResult:
        grok = GrokPage(page)
        if job.status == Status.COMPLETE:
            return await recollect(
                page, job, paths, config, reopen=hooks.reopen, persist=hooks.persist
            )
        await wait_for_answer(grok, revival_context(job, config, hooks.log))
        return await collect(
            page, job, paths, config, response_index=0, reopen=hooks.reopen, persist=hooks.persist
        )

    async def _collect(self, ctx: WorkerContext, grok: GrokPage, index: int) -> ProviderOutcome:
        reopen, persist = collection_hooks(ctx, grok.page)
        # Grok's own capture function reads the page (its registry entry's ``capture``).
        result = await collect(
            grok.page,
            ctx.job,
            ctx.paths,
            ctx.config,
            response_index=index,
            reopen=reopen,
            persist=persist,
        )
        return await collection_outcome(ctx, result, view=grok)
