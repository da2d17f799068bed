"""A Grok tab, read and driven through the vocabulary: the only place the Grok driver builds
Playwright locators and runs in-page scripts (what it reads as every one-editor chat site does
is `providers.page.ChatPage`'s)."""

from __future__ import annotations

from playwright.async_api import Locator, Page

from oraculum.capture.page import CaptureRequest, TurnCapture
from oraculum.core.providers import CONVERSATION_PATH
from oraculum.providers.grok import vocabulary as vocab
from oraculum.providers.grok.page_state import GrokObservation
from oraculum.providers.locales import exact_any
from oraculum.providers.page import ChatPage


class GrokPage(ChatPage):
    SCRIPTS_PACKAGE = "oraculum.providers.grok"
    CONVERSATION_PATH = CONVERSATION_PATH
    COMPOSER_REGION = (vocab.COMPOSER_REGION_SELECTOR, vocab.EDITABLE_SELECTOR)
    RETRY_LABELS = vocab.RETRY_LABELS
    SIGN_IN_LABELS = vocab.SIGN_IN_LABELS

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

    def upload_opener(self) -> Locator:
        return self.attach_button()

    def send_control(self) -> Locator:
        return self.submit_button()

    def model_select(self) -> Locator:
        return self.page.get_by_role("button", name=exact_any(vocab.MODEL_SELECT_LABELS))

    def heavy_items(self, role: str) -> Locator:
        return self.page.get_by_role(role, name=vocab.HEAVY_ITEM_PATTERN)  # type: ignore[arg-type]

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

    async def close_upload_menu(self) -> None:
        await self.guarded_press("Escape", "the attach menu")  # close it if it is still open

    async def upload_busy(self) -> bool:
        """Grok's chip shows no progress to read: its name without an error is the signal."""
        return False

    async def send_ready(self) -> bool:
        """Submit enabled (Grok keeps it disabled while an attachment is still uploading)."""
        submit = self.submit_button()
        return await self.present(submit, vocab.SUBMIT_LABEL) and await submit.first.is_enabled()

    async def model_select_text(self) -> str:
        button = self.model_select()
        return (await button.first.inner_text()) if await button.count() else ""


async def capture(page: Page, request: CaptureRequest) -> TurnCapture:
    """Grok's capture function (its registry entry's ``capture``): one bound reply of ``page``."""
    return await GrokPage(page).capture(request)
