"""The page flow a chat site with one composer shares (Grok's, Gemini's): verify the page →
configure the model → attach the archive → type → send (not_sent → attempted → accepted) →
adopt the conversation URL shown with this job's archive → wait for the reply after that user
turn → collect it through the provider's own capture function.

A provider's package supplies the steps that are its own (its page view, readiness, model
choice, composer and answer wait) as class attributes of a subclass; nothing here knows a
provider's words.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from playwright.async_api import Page

from oraculum.capture.collect import CollectionResult, collect, recollect
from oraculum.core.config import Config, provider_urls
from oraculum.jobs.model import Job, Phase, Status
from oraculum.jobs.store import JobPaths
from oraculum.providers import composer_steps as steps
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
from oraculum.providers.completion import AnswerWords, revival_context, wait_for_answer
from oraculum.providers.composer_steps import ComposerWords
from oraculum.providers.send import SendBaseline

__all__ = ["ChatFlow"]


class ChatFlow(BrowserProvider):
    """One job's page flow over a provider's steps (set by the subclass)."""

    name: ClassVar[str]  # the registry name (its config URLs)
    label: ClassVar[str]  # how messages name the site
    page_view: Any  # the page class (`providers.page.ChatPage`)
    composer: ClassVar[ComposerWords]  # the provider's words for the shared composer steps
    allowed_origins: ClassVar[Any]  # (chat URL) -> origins the page may be on
    wait_until_ready: ClassVar[Any]  # the provider's readiness loop
    answer_words: ClassVar[AnswerWords]  # the provider's words for the shared answer wait

    async def configure(self, ctx: WorkerContext, view: Any) -> dict[str, Any]:
        """Choose the job's model and verify it; the `observedSelection`."""
        raise NotImplementedError

    async def drive(self, ctx: WorkerContext, page: Page) -> ProviderOutcome:
        view = self.page_view(page)
        watch_obstacles(ctx, view)
        chat_url, _ = provider_urls(ctx.config, self.name)
        origins = type(self).allowed_origins(chat_url)
        ready = type(self).wait_until_ready
        await open_ready(ctx, self, view, ctx.job.chat_url or chat_url, origins, ready)
        await ctx.enter_phase(Phase.CONFIGURING_MODEL)
        await ctx.record({"observed_selection": await self.configure(ctx, view)})
        await ctx.enter_phase(Phase.UPLOADING_ARCHIVE)
        archive = Path(ctx.job.archive_path)
        before = await self._send(ctx, view, archive)
        index = await self._await_answer(ctx, view, archive, before)
        await ctx.enter_phase(Phase.EXTRACTING_RESPONSE)
        reopen, persist = collection_hooks(ctx, page)
        # The provider's own capture function reads the page (its registry entry's ``capture``).
        result = await collect(
            page,
            ctx.job,
            ctx.paths,
            ctx.config,
            response_index=index,
            reopen=reopen,
            persist=persist,
        )
        return await collection_outcome(ctx, result, view=view)

    async def _send(self, ctx: WorkerContext, view: Any, archive: Path) -> SendBaseline:
        worker, words = ctx.config.worker, self.composer
        await steps.attach_archive(
            view, archive, words, timeout_s=worker.upload_timeout_ms / 1000, log=ctx.log
        )
        await steps.fill_prompt(view, ctx.prompt, words)
        await steps.wait_send_ready(view, words, timeout_s=worker.send_ready_timeout_ms / 1000)
        before = SendBaseline.of(await view.turns())
        await send_recorded(
            ctx,
            self.label,
            lambda: steps.click_send(view, words),
            lambda: steps.wait_accepted(
                view, before, words, timeout_s=worker.send_accept_timeout_ms / 1000
            ),
        )
        return before

    async def _await_answer(
        self, ctx: WorkerContext, view: Any, archive: Path, before: SendBaseline
    ) -> int:
        """Adopt the conversation proven by the archive, then wait for the reply bound to it;
        returns where that reply is among the replies."""
        worker = ctx.config.worker
        navigated = navigation_recorder(ctx)
        adopted = await adopt_conversation_url(
            view,
            archive.name,
            timeout_s=worker.url_verify_timeout_ms / 1000,
            log=ctx.log,
            on_navigation=navigated,
        )
        await ctx.enter_phase(Phase.AWAITING_RESPONSE, patch=conversation_patch(ctx.job, adopted))
        evidenced = adopted is None or adopted.verified
        answer = await wait_for_answer(
            view,
            completion_context(
                ctx, before.assistant_count, navigated, archive.name if evidenced else None
            ),
            self.answer_words,
        )
        ctx.log(f"{self.label} reply {answer.index} finished ({len(answer.text)} characters)")
        return int(answer.index)

    async def recollect_page(
        self, page: Page, job: Job, paths: JobPaths, config: Config, *, hooks: RecollectHooks
    ) -> CollectionResult:
        if job.status == Status.COMPLETE:
            return await recollect(
                page, job, paths, config, reopen=hooks.reopen, persist=hooks.persist
            )
        await wait_for_answer(
            self.page_view(page), revival_context(job, config, hooks.log), self.answer_words
        )
        return await collect(
            page, job, paths, config, response_index=0, reopen=hooks.reopen, persist=hooks.persist
        )
