"""A Grok tab, read and driven through the vocabulary: the only place the Grok driver builds
Playwright locators and runs in-page scripts."""

from __future__ import annotations

from typing import Any

from playwright.async_api import Locator, Page

from oraculum.capture.page import CaptureRequest, TurnCapture
from oraculum.core.providers import CONVERSATION_PATH
from oraculum.providers.grok import vocabulary as vocab
from oraculum.providers.grok.page_state import GrokObservation
from oraculum.providers.locales import exact_any
from oraculum.providers.page import ScriptedPage
from oraculum.providers.turns import TurnsReading


class GrokPage(ScriptedPage):
    SCRIPTS_PACKAGE = "oraculum.providers.grok"

    def __init__(self, page: Page) -> None:
        super().__init__(page, vocab.page_vocabulary(), vocab.obstacle_vocabulary())

    # Locators ------------------------------------------------------------------------------

    def composer(self) -> Locator:
        return self.page.get_by_role("textbox", name=exact_any(vocab.COMPOSER_LABELS))

    def editor(self) -> Locator:
        return self.page.locator(vocab.EDITABLE_SELECTOR)

    def attach_button(self) -> Locator:
        return self.page.get_by_role("button", name=exact_any(vocab.ATTACH_LABELS))

    def submit_button(self) -> Locator:
        return self.page.get_by_role("button", name=exact_any(vocab.SUBMIT_LABELS))

    def retry_button(self) -> Locator:
        return self.page.get_by_role("button", name=exact_any(vocab.RETRY_LABELS))

    def model_select(self) -> Locator:
        return self.page.get_by_role("button", name=exact_any(vocab.MODEL_SELECT_LABELS))

    def heavy_items(self, role: str) -> Locator:
        return self.page.get_by_role(role, name=vocab.HEAVY_ITEM_PATTERN)  # type: ignore[arg-type]

    def sign_in_controls(self) -> Locator:
        signs = exact_any(vocab.SIGN_IN_LABELS)
        link = self.page.get_by_role("link", name=signs)
        return link.or_(self.page.get_by_role("button", name=signs))

    def composer_region(self) -> Locator:
        return self.page.locator(vocab.COMPOSER_REGION_SELECTOR).filter(
            has=self.page.locator(vocab.EDITABLE_SELECTOR)
        )

    # Readings ------------------------------------------------------------------------------

    async def observe(self) -> GrokObservation:
        seen = await self.evaluate("observe.js")
        return GrokObservation(
            url=seen["url"],
            scoped_text=seen["scopedText"],
            login_cta=bool(seen["loginCta"]),
            composer_present=bool(seen["composerPresent"]),
            editable=bool(seen["editable"]),
            attach_present=bool(seen["attachPresent"]),
        )

    async def scoped_text(self) -> str:
        return str((await self.evaluate("observe.js"))["scopedText"])

    async def composer_text(self) -> str:
        """What the composer region shows: the editor and its attachment chips."""
        region = self.composer_region()
        if await region.count() == 0:
            return ""
        return await region.first.inner_text()

    async def model_select_text(self) -> str:
        button = self.model_select()
        return (await button.first.inner_text()) if await button.count() else ""

    async def insert_text(self, text: str) -> dict[str, Any]:
        return dict(await self.evaluate("insert_text.js", text=text))

    async def turns(self, archive_name: str | None = None) -> TurnsReading:
        """The conversation now; with ``archive_name``, also where the job's exchange is."""
        data = await self.evaluate(
            "messages.js",
            mode="turns",
            archiveName=archive_name,
            conversationPattern=CONVERSATION_PATH.pattern,
        )
        return TurnsReading.from_js(data)

    async def capture(self, request: CaptureRequest) -> TurnCapture:
        """One bound reply, in the shape of the shared capture (`capture.page.TurnCapture`)."""
        data = await self.evaluate(
            "messages.js",
            mode="capture",
            responseIndex=request.response_index,
            expectConversationId=request.expect_conversation_id,
            messageId=request.message_id,
            archiveName=request.archive_name,
            bindByArchive=request.bind_by_archive,
            conversationPattern=CONVERSATION_PATH.pattern,
        )
        return TurnCapture.from_js(data)


async def capture(page: Page, request: CaptureRequest) -> TurnCapture:
    """Grok's capture function (its registry entry's ``capture``): one bound reply of ``page``."""
    return await GrokPage(page).capture(request)
