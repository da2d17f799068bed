"""The ChatGPT page flow for one job (the shared lifecycle clones, launches and diagnoses).

verify the page → configure the model → attach the archive → fill the prompt → send
(not_sent → attempted → accepted) → adopt the conversation URL → wait for this turn's answer →
collect it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from playwright.async_api import Page

from oraculum.capture.collect import CollectionResult, collect, recollect
from oraculum.core.config import Config
from oraculum.core.errors import OracleError
from oraculum.jobs.model import EventKind, Job, Phase, PromptSendState, Status
from oraculum.jobs.store import JobPaths
from oraculum.providers.base import ProviderOutcome, RecollectHooks, WorkerContext
from oraculum.providers.browser_job import (
    collection_outcome,
    conversation_patch,
    diagnose,
    run_browser_job,
)
from oraculum.providers.chatgpt import composer
from oraculum.providers.chatgpt.completion import (
    CompletionContext,
    adopt_conversation_url,
    revival_context,
    wait_for_answer,
)
from oraculum.providers.chatgpt.page import ChatGPTPage, TurnsReading
from oraculum.providers.chatgpt.page_state import allowed_origins, conversation_id_from_url
from oraculum.providers.chatgpt.pickers import Configurator, Wanted
from oraculum.providers.chatgpt.readiness import wait_until_ready


class ChatGPTProvider:
    """The ChatGPT page flow; the shared lifecycle (`providers.browser_job`) runs it."""

    async def run(self, ctx: WorkerContext) -> ProviderOutcome:
        if ctx.job.selection.get("tool") == "deep_research":
            raise OracleError(
                "preset_unsupported",
                "The deep_research preset is not supported by this version of oraculum.",
                suggested_next_step="Use pro_extended or another model preset.",
            )
        return await run_browser_job(ctx, self)

    async def scoped_text(self, page: Page) -> str | None:
        return await ChatGPTPage(page).scoped_text()

    async def drive(self, ctx: WorkerContext, page: Page) -> ProviderOutcome:
        return await self._drive(ctx, ChatGPTPage(page))

    async def _diagnose(self, ctx: WorkerContext, chat: ChatGPTPage, reason: str) -> None:
        await diagnose(ctx, self, chat.page, reason)

    async def recollect_page(
        self, page: Page, job: Job, paths: JobPaths, config: Config, *, hooks: RecollectHooks
    ) -> CollectionResult:
        if job.status == Status.COMPLETE:
            return await recollect(
                page, job, paths, config, reopen=hooks.reopen, persist=hooks.persist
            )
        await wait_for_answer(ChatGPTPage(page), revival_context(job, config, hooks.log))
        return await collect(
            page, job, paths, config, response_index=0, reopen=hooks.reopen, persist=hooks.persist
        )

    async def _drive(self, ctx: WorkerContext, chat: ChatGPTPage) -> ProviderOutcome:
        await self._verify(ctx, chat)
        await ctx.enter_phase(Phase.CONFIGURING_MODEL)
        observed = await Configurator(chat, ctx.log).configure(
            Wanted.from_selection(ctx.job.selection)
        )
        ctx.log(f"model configured: {observed.to_json_dict()}")
        await ctx.record({"observed_selection": observed.to_json_dict()})
        await ctx.enter_phase(Phase.UPLOADING_ARCHIVE)
        archive = Path(ctx.job.archive_path)
        before, accepted = await self._send(ctx, chat, archive)
        navigated = self._navigation_recorder(ctx)
        adopted = await adopt_conversation_url(
            chat,
            archive.name,
            timeout_s=ctx.config.worker.url_verify_timeout_ms / 1000,
            log=ctx.log,
            on_navigation=navigated,
            first=accepted,
        )
        await ctx.enter_phase(Phase.AWAITING_RESPONSE, patch=conversation_patch(ctx.job, adopted))
        # Without the archive ever in view the answer is waited for by position, and
        # collection (which always binds through the archive's turn) refuses to save a guess.
        evidenced = adopted is None or adopted.verified
        answer = await wait_for_answer(
            chat, self._completion(ctx, before, navigated, archive.name if evidenced else None)
        )
        if answer.index != before.assistant_count:
            ctx.log(
                f"the reply to this job's archive turn is assistant turn {answer.index}, "
                f"not {before.assistant_count} as counted before send"
            )
        await ctx.enter_phase(Phase.EXTRACTING_RESPONSE)
        return await self._collect(ctx, chat, answer.text, answer.index)

    async def _verify(self, ctx: WorkerContext, chat: ChatGPTPage) -> None:
        """Open the job's page and wait until it is ready for a prompt (or fail fast)."""
        browser = ctx.config.browser
        await chat.page.goto(ctx.job.chat_url or browser.chat_url)
        await ctx.enter_phase(Phase.VERIFYING_AUTH)

        async def failed_readiness(state: Any) -> None:
            ctx.log(f"page state {state.state}: {state.reason} {state.evidence}".rstrip())
            await self._diagnose(ctx, chat, "preflight")

        await wait_until_ready(
            chat,
            allowed_origins(browser.chat_url, browser.auth_url),
            timeout_s=ctx.config.worker.readiness_timeout_ms / 1000,
            on_failure=failed_readiness,
            log=ctx.log,
        )

    async def _send(
        self, ctx: WorkerContext, chat: ChatGPTPage, archive: Path
    ) -> tuple[composer.SendBaseline, TurnsReading]:
        """Attach, fill, send: `attempted` just before the click, `accepted` once it left."""
        worker = ctx.config.worker
        await composer.attach_archive(chat, archive, timeout_s=worker.upload_timeout_ms / 1000)
        await composer.fill_prompt(chat, ctx.prompt)
        await composer.wait_send_ready(chat, timeout_s=worker.send_ready_timeout_ms / 1000)
        before = composer.SendBaseline.of(await chat.turns())
        await ctx.record(
            {"prompt_send_state": PromptSendState.ATTEMPTED}, message="Sending the prompt."
        )
        await composer.click_send(chat)
        accepted = await composer.wait_accepted(
            chat, before, timeout_s=worker.send_accept_timeout_ms / 1000
        )
        await ctx.record(
            {"prompt_send_state": PromptSendState.ACCEPTED}, message="ChatGPT accepted the prompt."
        )
        return before, accepted

    @staticmethod
    def _navigation_recorder(ctx: WorkerContext) -> Callable[[str], Awaitable[None]]:
        async def navigated(away: str) -> None:
            await ctx.record(
                {},
                message=f"The tab showed another page ({away}); reopening the job's conversation.",
                kind=EventKind.NAVIGATION,
            )

        return navigated

    @staticmethod
    def _completion(
        ctx: WorkerContext,
        before: composer.SendBaseline,
        navigated: Callable[[str], Awaitable[None]],
        archive_name: str | None,
    ) -> CompletionContext:
        job, worker = ctx.job, ctx.config.worker
        chat_url = job.chat_url or ""
        return CompletionContext(
            conversation_id=job.conversation_id or conversation_id_from_url(chat_url) or "",
            chat_url=chat_url,
            index=before.assistant_count,
            poll_s=worker.poll_ms / 1000,
            timeout_s=worker.completion_timeout_ms / 1000,
            stale_stop_s=worker.stale_stop_ms / 1000,
            log=ctx.log,
            on_navigation=navigated,
            archive_name=archive_name,
        )

    async def _collect(
        self, ctx: WorkerContext, chat: ChatGPTPage, streamed: str, index: int
    ) -> ProviderOutcome:
        """Bind to exactly this turn and save it (the streamed text is evidence only: for
        ChatGPT nothing but the bound capture is ever saved as the response)."""
        chat_url = ctx.job.chat_url or ""

        async def reopen() -> None:
            await chat.page.goto(chat_url)

        async def persist(patch: dict[str, Any]) -> Job:
            return await ctx.record(patch)

        result = await collect(
            chat.page,
            ctx.job,
            ctx.paths,
            ctx.config,
            response_index=index,
            reopen=reopen,
            persist=persist,
        )
        return collection_outcome(ctx, result, f" ({len(streamed)} characters streamed)")
