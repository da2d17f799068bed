"""The third provider's page view and page flow: everything a provider writes itself, on the
shared lifecycle (`providers.browser_job`), URL adoption, send acceptance and answer wait.

verify the page → record the mode → attach the archive (confirmed by its chip) → fill the
prompt → send (attempted → accepted) → adopt the conversation URL shown with the archive → wait
for the reply after it → collect it through this provider's capture function.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from playwright.async_api import Locator, Page

from oraculum.capture.collect import collect
from oraculum.capture.page import CaptureRequest, TurnCapture
from oraculum.core.config import provider_urls
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.providers import provider_spec
from oraculum.jobs.model import Phase
from oraculum.providers import upload
from oraculum.providers.adoption import adopt_conversation_url
from oraculum.providers.base import ProviderOutcome, WorkerContext
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
from oraculum.providers.completion import AnswerWords, wait_for_answer
from oraculum.providers.page import ScriptedPage
from oraculum.providers.readiness import (
    Classification,
    PageState,
    ReadinessRules,
    blocker,
    first_match,
    origin_of,
    page_waiter,
)
from oraculum.providers.send import SendBaseline, send_accepted, squash
from oraculum.providers.turns import TurnsReading

from . import vocabulary as vocab
from .entry import HERE, SPEC

POLL_S = 0.1
SEND_WANTED = "the Send button"
UPLOAD_ROUTE = upload.UploadRoute(
    file_input_selector=vocab.FILE_INPUT_SELECTOR,
    entry_pattern=vocab.UPLOAD_ENTRY,
    menu_selectors=(vocab.COMPOSER_SELECTOR,),
    wanted="the composer's file input",
)


@dataclass(frozen=True)
class Observation:
    url: str
    scoped_text: str
    login_cta: bool
    composer_ready: bool


class ThirdPage(ScriptedPage):
    SCRIPTS_PACKAGE = HERE

    def __init__(self, page: Page) -> None:
        super().__init__(page, vocab.page_vocabulary(), vocab.obstacle_vocabulary())

    def prompt_box(self) -> Locator:
        return self.page.get_by_role("textbox", name=vocab.PROMPT_LABEL, exact=True)

    def send_button(self) -> Locator:
        return self.page.get_by_role("button", name=vocab.SEND_LABEL, exact=True)

    def retry_button(self) -> Locator:
        return self.page.get_by_role("button", name=vocab.RETRY_LABEL, exact=True)

    async def observe(self) -> Observation:
        seen = await self.evaluate("observe.js")
        return Observation(
            seen["url"], seen["scopedText"], bool(seen["loginCta"]), bool(seen["composerReady"])
        )

    async def scoped_text(self) -> str:
        return (await self.observe()).scoped_text

    async def composer_text(self) -> str:
        return await self.page.locator(vocab.COMPOSER_SELECTOR).inner_text()

    async def turns(self, archive_name: str | None = None) -> TurnsReading:
        data = await self.evaluate(
            "messages.js",
            mode="turns",
            archiveName=archive_name,
            conversationPattern=SPEC.conversation_path.pattern,
        )
        return TurnsReading.from_js(data)

    async def capture(self, request: CaptureRequest) -> TurnCapture:
        data = await self.evaluate("messages.js", **request.to_js())  # capture.js's argument
        return TurnCapture.from_js(data)


async def capture(page: Page, request: CaptureRequest) -> TurnCapture:
    """The entry's ``capture``: one bound reply of the third site's page."""
    return await ThirdPage(page).capture(request)


def classify(observation: Observation, origins: frozenset[str]) -> Classification:
    blocked = blocker(observation.scoped_text, SPEC.label, vocab)
    if blocked is not None:
        return blocked
    if origin_of(observation.url) not in origins:
        return Classification(PageState.LOGIN_REQUIRED, "Redirected away.", observation.url)
    if observation.login_cta:
        return Classification(PageState.LOGIN_REQUIRED, "The site shows Sign in.")
    if observation.composer_ready:
        return Classification(PageState.READY, "The composer is ready.")
    return Classification(PageState.UNKNOWN, "The page is not ready yet.")


wait_until_ready = page_waiter(
    classify,
    ReadinessRules(
        name=SPEC.label,
        failures={
            PageState.LOGIN_REQUIRED: (
                ErrorCode.AUTH_LOGIN_REQUIRED,
                f"Sign the {SPEC.label} seed profile in again, then resubmit.",
            )
        },
    ),
)
WORDS = AnswerWords(
    label=SPEC.label,
    rate_limited=partial(first_match, patterns=vocab.RATE_LIMIT_PATTERNS),
    generation_failure=partial(first_match, patterns=vocab.GENERATION_FAILURE_PATTERNS),
    retry_label=vocab.RETRY_LABEL,
)


async def attach_archive(view: ThirdPage, archive: Path, timeout_s: float) -> None:
    """Set the archive on the file input; done once the composer's chip names it."""
    await upload.choose_file(view, UPLOAD_ROUTE, archive)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if archive.name in await view.composer_text():
            return
        await asyncio.sleep(POLL_S)
    raise OracleError("upload_not_confirmed", f"The chip never named {archive.name}.")


async def fill_prompt(view: ThirdPage, prompt: str) -> None:
    box = view.prompt_box()
    await view.guarded_fill(box, prompt, "the prompt")
    if squash(await box.input_value()) != squash(prompt):
        raise OracleError("composer_not_ready", "The composer does not hold the prompt.")


async def wait_accepted(view: ThirdPage, before: SendBaseline, timeout_s: float) -> TurnsReading:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        reading = await view.turns()
        if send_accepted(before, reading):
            return reading
        await asyncio.sleep(POLL_S)
    raise OracleError("send_not_accepted", "The site did not take the prompt.")


class ThirdProvider(BrowserProvider):
    page_view = ThirdPage

    async def drive(self, ctx: WorkerContext, page: Page) -> ProviderOutcome:
        view = ThirdPage(page)
        watch_obstacles(ctx, view)
        worker = ctx.config.worker
        chat_url, _ = provider_urls(ctx.config, ctx.job.provider)
        origins = frozenset({origin_of(chat_url)})
        await open_ready(ctx, self, view, ctx.job.chat_url or chat_url, origins, wait_until_ready)
        await ctx.enter_phase(Phase.CONFIGURING_MODEL)
        # The site has one model; the job's mode is what it asked for and what it gets.
        await ctx.record({"observed_selection": {"mode": ctx.job.selection.mode}})
        await ctx.enter_phase(Phase.UPLOADING_ARCHIVE)
        archive = Path(ctx.job.archive_path)
        await attach_archive(view, archive, worker.upload_timeout_ms / 1000)
        await fill_prompt(view, ctx.prompt)
        before = SendBaseline.of(await view.turns())
        await send_recorded(
            ctx,
            provider_spec(ctx.job.provider).label,
            lambda: view.guarded_click(view.send_button(), SEND_WANTED),
            lambda: wait_accepted(view, before, worker.send_accept_timeout_ms / 1000),
        )
        navigated = navigation_recorder(ctx)
        adopted = await adopt_conversation_url(
            view,
            archive.name,
            timeout_s=worker.url_verify_timeout_ms / 1000,
            log=ctx.log,
            on_navigation=navigated,
        )
        await ctx.enter_phase(Phase.AWAITING_RESPONSE, patch=conversation_patch(ctx.job, adopted))
        waiting = completion_context(ctx, before.assistant_count, navigated, archive.name)
        answer = await wait_for_answer(view, waiting, WORDS)
        await ctx.enter_phase(Phase.EXTRACTING_RESPONSE)
        reopen, persist = collection_hooks(ctx, page)
        result = await collect(
            page,
            ctx.job,
            ctx.paths,
            ctx.config,
            response_index=answer.index,
            reopen=reopen,
            persist=persist,
        )
        return await collection_outcome(ctx, result, view=view)
