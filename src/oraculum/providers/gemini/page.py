"""A Gemini tab, read and driven through the vocabulary: the only place the Gemini driver builds
Playwright locators and runs in-page scripts (what it reads as every one-editor chat site does
is `providers.page.ChatPage`'s)."""

from __future__ import annotations

from playwright.async_api import Locator, Page

from oraculum.capture.page import CaptureRequest, TurnCapture
from oraculum.core.providers import GEMINI_CONVERSATION_PATH
from oraculum.providers.gemini import vocabulary as vocab
from oraculum.providers.gemini.page_state import GeminiObservation
from oraculum.providers.page import ChatPage


class GeminiPage(ChatPage):
    SCRIPTS_PACKAGE = "oraculum.providers.gemini"
    CONVERSATION_PATH = GEMINI_CONVERSATION_PATH
    COMPOSER_REGION = (vocab.COMPOSER_REGION_SELECTOR, vocab.COMPOSER_SELECTOR)
    RETRY_LABELS = vocab.RETRY_LABELS
    SIGN_IN_LABELS = vocab.SIGN_IN_LABELS

    def __init__(self, page: Page) -> None:
        super().__init__(page, vocab.page_vocabulary(), vocab.obstacle_vocabulary())

    # Locators ------------------------------------------------------------------------------

    def composer(self) -> Locator:
        return self.page.locator(vocab.EDITABLE_SELECTOR)

    def tools_button(self) -> Locator:
        return self.page.get_by_role("button", name=vocab.TOOLS_NAME)

    def send_button(self) -> Locator:
        return self.page.locator(vocab.SEND_SELECTOR)

    def upload_opener(self) -> Locator:
        return self.tools_button()

    def send_control(self) -> Locator:
        return self.send_button()

    def mode_button(self) -> Locator:
        return self.page.locator(vocab.MODE_BUTTON_SELECTOR)

    def mode_items(self) -> Locator:
        return self.page.locator(vocab.MODE_MENU_SELECTOR).locator(vocab.MODE_ITEM_SELECTOR)

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

    async def close_upload_menu(self) -> None:
        if await self.tools_button().first.get_attribute("aria-expanded") == "true":
            await self.guarded_press("Escape", "the Upload & tools menu")

    async def upload_busy(self) -> bool:
        """A chip still shows a visible progress bar (facts §1.6: hidden ones stay mounted)."""
        bars = self.chips().locator(vocab.PROGRESS_SELECTOR).locator(vocab.VISIBLE_ONLY)
        return await bars.count() > 0

    async def send_ready(self) -> bool:
        """Send shown and enabled (facts §1.3: it appears once text is typed)."""
        send = self.send_button().locator(vocab.VISIBLE_ONLY)
        return bool(await send.count()) and await send.first.is_enabled()

    async def mode_label(self) -> str:
        """The opener's accessible name ("Open mode picker, currently Pro")."""
        button = self.mode_button()
        if not await button.count():
            return ""
        return (await button.first.get_attribute("aria-label")) or ""


async def capture(page: Page, request: CaptureRequest) -> TurnCapture:
    """Gemini's capture function (its registry entry's ``capture``): one bound reply."""
    return await GeminiPage(page).capture(request)
