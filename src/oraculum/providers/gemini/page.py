"""A Gemini tab, read and driven through the vocabulary: the only place the Gemini driver builds
Playwright locators and runs in-page scripts."""

from __future__ import annotations

from typing import Any

from playwright.async_api import Locator, Page

from oraculum.capture.page import CaptureRequest, TurnCapture
from oraculum.core.providers import GEMINI_CONVERSATION_PATH
from oraculum.providers.gemini import vocabulary as vocab
from oraculum.providers.gemini.page_state import GeminiObservation
from oraculum.providers.locales import exact_any
from oraculum.providers.page import ScriptedPage
from oraculum.providers.turns import TurnsReading


class GeminiPage(ScriptedPage):
    SCRIPTS_PACKAGE = "oraculum.providers.gemini"

    def __init__(self, page: Page) -> None:
        super().__init__(page, vocab.page_vocabulary(), vocab.obstacle_vocabulary())

    # Locators ------------------------------------------------------------------------------

    def composer(self) -> Locator:
        return self.page.locator(vocab.EDITABLE_SELECTOR)

    def tools_button(self) -> Locator:
        return self.page.get_by_role("button", name=vocab.TOOLS_NAME)

    def send_button(self) -> Locator:
        return self.page.locator(vocab.SEND_SELECTOR)

    def retry_button(self) -> Locator:
        return self.page.get_by_role("button", name=exact_any(vocab.RETRY_LABELS))

    def mode_button(self) -> Locator:
        return self.page.locator(vocab.MODE_BUTTON_SELECTOR)

    def mode_items(self) -> Locator:
        return self.page.locator(vocab.MODE_MENU_SELECTOR).locator(vocab.MODE_ITEM_SELECTOR)

    def sign_in_controls(self) -> Locator:
        link = self.page.get_by_role("link", name=vocab.SIGN_IN_NAME)
        return link.or_(self.page.get_by_role("button", name=vocab.SIGN_IN_NAME))

    def composer_region(self) -> Locator:
        return self.page.locator(vocab.COMPOSER_REGION_SELECTOR).filter(
            has=self.page.locator(vocab.COMPOSER_SELECTOR)
        )

    def chips(self) -> Locator:
        return self.composer_region().locator(vocab.CHIP_SELECTOR)

    # Readings ------------------------------------------------------------------------------

    async def observe(self) -> GeminiObservation:
        seen = await self.evaluate("observe.js")
        return GeminiObservation(
            url=seen["url"],
            scoped_text=seen["scopedText"],
            signed_in=bool(seen["signedIn"]),
            login_cta=bool(seen["loginCta"]),
            composer_present=bool(seen["composerPresent"]),
            editable=bool(seen["editable"]),
            tools_present=bool(seen["toolsPresent"]),
        )

    async def scoped_text(self) -> str:
        return str((await self.evaluate("observe.js"))["scopedText"])

    async def composer_text(self) -> str:
        """What the input area shows: the editor and its file chips."""
        region = self.composer_region()
        if await region.count() == 0:
            return ""
        return await region.first.inner_text()

    async def chip_busy(self) -> bool:
        """A chip still shows a visible progress bar (facts §1.6: hidden ones stay mounted)."""
        bars = self.chips().locator(vocab.PROGRESS_SELECTOR).locator(vocab.VISIBLE_ONLY)
        return await bars.count() > 0

    async def mode_label(self) -> str:
        """The opener's accessible name ("Open mode picker, currently Pro")."""
        button = self.mode_button()
        if not await button.count():
            return ""
        return (await button.first.get_attribute("aria-label")) or ""

    async def insert_text(self, text: str) -> dict[str, Any]:
        return dict(await self.evaluate("insert_text.js", text=text))

    async def turns(self, archive_name: str | None = None) -> TurnsReading:
        """The conversation now; with ``archive_name``, also where the job's exchange is."""
        data = await self.evaluate(
            "messages.js",
            mode="turns",
            archiveName=archive_name,
            conversationPattern=GEMINI_CONVERSATION_PATH.pattern,
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
            conversationPattern=GEMINI_CONVERSATION_PATH.pattern,
        )
        return TurnCapture.from_js(data)


async def capture(page: Page, request: CaptureRequest) -> TurnCapture:
    """Gemini's capture function (its registry entry's ``capture``): one bound reply."""
    return await GeminiPage(page).capture(request)
