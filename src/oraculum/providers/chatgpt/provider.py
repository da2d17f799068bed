"""The ChatGPT page flow for one job (the shared lifecycle clones, launches and diagnoses).

verify the page → configure the model → attach the archive → fill the prompt → send
(not_sent → attempted → accepted) → adopt the conversation URL → wait for this turn's answer →
collect it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from playwright.async_api import Page

from oraculum.capture.collect import CollectionResult, collect, recollect
from oraculum.core.config import Config
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
    diagnose,
    navigation_recorder,
    open_ready,
    send_recorded,
    watch_obstacles,
)
from oraculum.providers.chatgpt import composer, deep_research, vocabulary
from oraculum.providers.chatgpt.completion import wait_for_answer
from oraculum.providers.chatgpt.page import ChatGPTPage
from oraculum.providers.chatgpt.page_state import allowed_origins
from oraculum.providers.chatgpt.pickers import Configurator, Wanted
from oraculum.providers.chatgpt.readiness import wait_until_ready
from oraculum.providers.completion import Answer, CompletionContext, revival_context
from oraculum.providers.page import page_language
from oraculum.providers.turns import TurnsReading


class ChatGPTProvider(BrowserProvider):
    """The ChatGPT page flow; the shared lifecycle (`providers.browser_job`) runs it."""

    page_view = ChatGPTPage

    async def drive(self, ctx: WorkerContext, page: Page) -> ProviderOutcome:
        return await self._drive(ctx, ChatGPTPage(page))

    async def _diagnose(self, ctx: WorkerContext, chat: ChatGPTPage, reason: str) -> None:
        await diagnose(ctx, self, chat.page, reason)

    async def recollect_page(
        self, page: Page, job: Job, paths: JobPaths, config: Config, *, hooks: RecollectHooks
    ) -> CollectionResult:
        research = _is_research(job)
        if job.status == Status.COMPLETE:
            return await recollect(
                page,
                job,
                paths,
                config,
                reopen=hooks.reopen,
                persist=hooks.persist,
                research=research,
                vocabulary=vocabulary.turn_vocabulary(),
            )
        revival = revival_context(job, config, hooks.log)
        if research:  # the research holds its stop control for its whole run
            revival.stale_stop_s = deep_research.NO_STALE_STOP
        await wait_for_answer(ChatGPTPage(page), revival)
        return await collect(
            page,
            job,
            paths,
            config,
            response_index=0,
            reopen=hooks.reopen,
            persist=hooks.persist,
            research=research,
            vocabulary=vocabulary.turn_vocabulary(),
        )

    async def _drive(self, ctx: WorkerContext, chat: ChatGPTPage) -> ProviderOutcome:
        watch_obstacles(ctx, chat)
        await self._verify(ctx, chat)
        lang = await page_language(chat.page)
        ctx.log(f"page language: {vocabulary.LOCALES.resolve(lang) or 'no table'} ({lang!r})")
        await ctx.enter_phase(Phase.CONFIGURING_MODEL)
        research = _is_research(ctx.job)
        observed = await self._configure(ctx, chat, research)
        ctx.log(f"model configured: {observed}")
        await ctx.record({"observed_selection": observed})
        await ctx.enter_phase(Phase.UPLOADING_ARCHIVE)
        archive = Path(ctx.job.archive_path)
        widgets = await deep_research.widget_count(chat) if research else 0
        before, accepted = await self._send(ctx, chat, archive, fill=not research)
        navigated = navigation_recorder(ctx)
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
        completion = self._completion(
            ctx, before, navigated, archive.name if evidenced else None, chat if research else None
        )
        answer = await wait_for_answer(chat, completion)
        if answer.index != before.assistant_count:
            ctx.log(
                f"the reply to this job's archive turn is assistant turn {answer.index}, "
                f"not {before.assistant_count} as counted before send"
            )
        anchored = True
        if research:
            answer, anchored = await self._research(ctx, chat, answer, widgets, completion)
        await ctx.enter_phase(Phase.EXTRACTING_RESPONSE)
        return await self._collect(ctx, chat, answer, research=research, anchored=anchored)

    @staticmethod
    async def _configure(ctx: WorkerContext, chat: ChatGPTPage, research: bool) -> dict[str, Any]:
        """The model, or for Deep Research the prompt and then the tool (a fill after the
        tool would remove its pill); returns what the composer shows."""
        if research:
            await composer.fill_prompt(chat, ctx.prompt)
            return await deep_research.choose_tool(chat, ctx.prompt, ctx.log)
        selection = ctx.job.selection.to_json_dict()
        observed = await Configurator(chat, ctx.log).configure(
            Wanted.from_selection(selection), selection.get("preset")
        )
        return observed.to_json_dict()

    async def _research(
        self,
        ctx: WorkerContext,
        chat: ChatGPTPage,
        answer: Answer,
        widgets: int,
        completion: CompletionContext,
    ) -> tuple[Answer, bool]:
        """The research turn: ``answer`` itself, or after a clarifying question the reply to
        the job's answer (then bound by position, being the second reply after the archive)."""
        if deep_research.is_research(answer.text, await deep_research.widget_count(chat), widgets):
            return answer, True
        reply = str(ctx.job.options.get("research_answer") or "").strip()
        if not reply:
            raise deep_research.needs_answer(ctx.paths.dir, ctx.job.id, answer.text)
        ctx.log("Deep Research asked a question first; sending the job's answer to it")
        worker = ctx.config.worker
        await composer.fill_prompt(chat, reply)
        await composer.wait_send_ready(chat, timeout_s=worker.send_ready_timeout_ms / 1000)
        before = composer.SendBaseline.of(await chat.turns())
        widgets = await deep_research.widget_count(chat)
        await composer.click_send(chat)
        await composer.wait_accepted(chat, before, timeout_s=worker.send_accept_timeout_ms / 1000)
        completion.archive_name, completion.index = None, answer.index + 1
        research = await wait_for_answer(chat, completion)
        if not deep_research.is_research(
            research.text, await deep_research.widget_count(chat), widgets
        ):
            raise deep_research.needs_answer(ctx.paths.dir, ctx.job.id, research.text)
        return research, False

    async def _verify(self, ctx: WorkerContext, chat: ChatGPTPage) -> None:
        """Open the job's page and wait until it is ready for a prompt (or fail fast)."""
        browser = ctx.config.browser
        origins = allowed_origins(browser.chat_url, browser.auth_url)
        url = ctx.job.chat_url or browser.chat_url
        await open_ready(ctx, self, chat, url, origins, wait_until_ready)

    async def _send(
        self, ctx: WorkerContext, chat: ChatGPTPage, archive: Path, *, fill: bool = True
    ) -> tuple[composer.SendBaseline, TurnsReading]:
        """Attach, fill (unless the prompt is in already), send: `attempted` just before the
        click, `accepted` once it left."""
        worker = ctx.config.worker
        await composer.attach_archive(
            chat, archive, timeout_s=worker.upload_timeout_ms / 1000, log=ctx.log
        )
        ctx.log(f"upload of {archive.name} confirmed")
        if fill:
            await composer.fill_prompt(chat, ctx.prompt)
        await composer.wait_send_ready(chat, timeout_s=worker.send_ready_timeout_ms / 1000)
        before = composer.SendBaseline.of(await chat.turns())
        accepted = await send_recorded(
            ctx,
            "ChatGPT",
            lambda: composer.click_send(chat),
            lambda: composer.wait_accepted(
                chat, before, timeout_s=worker.send_accept_timeout_ms / 1000
            ),
        )
        return before, accepted

    @staticmethod
    def _completion(
        ctx: WorkerContext,
        before: composer.SendBaseline,
        navigated: Callable[[str], Awaitable[None]],
        archive_name: str | None,
        research: ChatGPTPage | None = None,
    ) -> CompletionContext:
        """How to wait for the answer; with ``research`` (its page), for Deep Research: a day
        at most, no stale-stop rule, the widget's status text recorded on every poll."""
        worker = ctx.config.worker
        if research is not None:
            return replace(
                ChatGPTProvider._completion(ctx, before, navigated, archive_name),
                timeout_s=max(
                    worker.completion_timeout_ms / 1000, deep_research.RESEARCH_TIMEOUT_S
                ),
                stale_stop_s=deep_research.NO_STALE_STOP,
                heartbeat=deep_research.StatusRecorder(
                    research, ctx.paths.dir, every_s=max(worker.poll_ms / 1000, 1.0)
                ),
            )
        return completion_context(ctx, before.assistant_count, navigated, archive_name)

    async def _collect(
        self,
        ctx: WorkerContext,
        chat: ChatGPTPage,
        answer: Answer,
        *,
        research: bool = False,
        anchored: bool = True,
    ) -> ProviderOutcome:
        """Bind to exactly this turn and save it (the streamed text is evidence only: for
        ChatGPT nothing but the bound capture is ever saved as the response)."""
        reopen, persist = collection_hooks(ctx, chat.page)
        result = await collect(
            chat.page,
            ctx.job,
            ctx.paths,
            ctx.config,
            response_index=answer.index,
            reopen=reopen,
            persist=persist,
            research=research,
            anchored=anchored,
            vocabulary=vocabulary.turn_vocabulary(),
        )
        return await collection_outcome(
            ctx, result, f" ({len(answer.text)} characters streamed)", view=chat
        )


def _is_research(job: Job) -> bool:
    return job.selection.tool == deep_research.TOOL
