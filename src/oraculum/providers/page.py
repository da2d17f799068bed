"""What every provider's tab wrapper shares: packaged in-page scripts evaluated with the
provider's vocabulary, a default timeout that fails a step instead of hanging, and the obstacle
layer every action goes through (`guarded_click` and friends)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, ClassVar

from playwright.async_api import Locator, Page

from oraculum.capture.page import CaptureRequest, TurnCapture, packaged_script
from oraculum.providers.locales import exact_any
from oraculum.providers.obstacle_guard import ObstacleGuard, ObstacleVocabulary
from oraculum.providers.turns import TurnsReading

__all__ = ["ChatPage", "ScriptedPage", "button_names", "menu_entries", "page_language"]


class ScriptedPage:
    """A tab driven through one provider's vocabulary and its ``js/`` scripts."""

    ACTION_TIMEOUT_MS = 15_000
    SCRIPTS_PACKAGE: ClassVar[str]  # the package whose js/ folder holds the page scripts

    def __init__(
        self, page: Page, vocabulary: dict[str, Any], obstacles: ObstacleVocabulary
    ) -> None:
        self.page = page
        self.vocabulary = vocabulary
        self.obstacles = ObstacleGuard(page, obstacles)
        # A control that never appears should fail this step, not hang for Playwright's 30 s.
        page.set_default_timeout(self.ACTION_TIMEOUT_MS)

    def script(self, name: str) -> str:
        return packaged_script(self.SCRIPTS_PACKAGE, f"js/{name}")

    async def evaluate(self, name: str, **extra: Any) -> Any:
        """Run the page script ``name`` with the vocabulary (and ``extra``) as its argument."""
        return await self.page.evaluate(self.script(name), {**self.vocabulary, **extra})

    # Actions, each behind the obstacle layer (``wanted`` names the control in its records) --

    async def present(self, control: Locator, wanted: str) -> bool:
        """Whether ``control`` is on the page once whatever hides it is cleared (a modal that
        aria-hides the page hides every control from a role query)."""
        await self.obstacles.clear(control, wanted)
        return await control.count() > 0

    async def guarded_click(self, control: Locator, wanted: str) -> None:
        await self.obstacles.act(control, wanted, lambda: control.click())

    async def guarded_fill(self, control: Locator, text: str, wanted: str) -> None:
        await self.obstacles.act(control, wanted, lambda: control.fill(text))

    async def guarded_press(self, key: str, wanted: str, control: Locator | None = None) -> None:
        """``key`` pressed in ``control`` (else wherever focus is)."""
        if control is None:
            await self.obstacles.clear(None, wanted)
            await self.page.keyboard.press(key)
            return
        await self.obstacles.act(control, wanted, lambda: control.press(key))

    async def guarded_set_files(self, control: Locator, path: Path, wanted: str) -> None:
        await self.obstacles.act(control, wanted, lambda: control.set_input_files(str(path)))


class ChatPage(ScriptedPage):
    """The tab of a chat site with one editor (Grok's, Gemini's): what both read and drive the
    same way, each through its own vocabulary (the class attributes a subclass sets from it) and
    its own ``js/messages.js`` and ``js/observe.js``."""

    CONVERSATION_PATH: ClassVar[re.Pattern[str]]  # the registry's conversation URL rule
    # The composer region's selector, and what it must hold to be the one with the editor.
    COMPOSER_REGION: ClassVar[tuple[str, str]]
    RETRY_LABELS: ClassVar[tuple[str, ...]]
    SIGN_IN_LABELS: ClassVar[tuple[str, ...]]

    def composer_region(self) -> Locator:
        region, holding = self.COMPOSER_REGION
        return self.page.locator(region).filter(has=self.page.locator(holding))

    def retry_button(self) -> Locator:
        return self.page.get_by_role("button", name=exact_any(self.RETRY_LABELS))

    def sign_in_controls(self) -> Locator:
        signs = exact_any(self.SIGN_IN_LABELS)
        link = self.page.get_by_role("link", name=signs)
        return link.or_(self.page.get_by_role("button", name=signs))

    async def scoped_text(self) -> str:
        return str((await self.evaluate("observe.js"))["scopedText"])

    async def composer_text(self) -> str:
        """What the composer region shows: the editor and its attachment chips."""
        region = self.composer_region()
        if await region.count() == 0:
            return ""
        return await region.first.inner_text()

    async def insert_text(self, text: str) -> dict[str, Any]:
        script = packaged_script("oraculum.providers", "js/insert_text.js")
        return dict(await self.page.evaluate(script, {**self.vocabulary, "text": text}))

    async def close_menu(self, opener: Locator) -> None:
        """Escape a menu its opener says is still open (``aria-expanded``)."""
        if await opener.count() and await opener.first.get_attribute("aria-expanded") == "true":
            await self.page.keyboard.press("Escape")

    async def turns(self, archive_name: str | None = None) -> TurnsReading:
        """The conversation now; with ``archive_name``, also where the job's exchange is."""
        data = await self.evaluate(
            "messages.js",
            mode="turns",
            archiveName=archive_name,
            conversationPattern=self.CONVERSATION_PATH.pattern,
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
            conversationPattern=self.CONVERSATION_PATH.pattern,
        )
        return TurnCapture.from_js(data)


async def menu_entries(page: Page, menu_selectors: tuple[str, ...]) -> list[str]:
    """The titles of the entries the page's open menus show (for an error that says what a
    menu offered instead of what was wanted)."""
    script = packaged_script("oraculum.providers", "js/menu_entries.js")
    return list(await page.evaluate(script, {"menuSelectors": list(menu_selectors)}))


async def page_language(page: Page) -> str:
    """The UI language the page announces (its `html lang`, e.g. "de-DE"; "" when none)."""
    return str(await page.evaluate(packaged_script("oraculum.providers", "js/page_language.js")))


async def button_names(scope: Locator, limit: int = 20) -> list[str]:
    """The names of the buttons in ``scope`` (what a page shows instead of a wanted control)."""
    buttons = scope.get_by_role("button")
    names = []
    for index in range(min(await buttons.count(), limit)):
        button = buttons.nth(index)
        name = (await button.get_attribute("aria-label") or await button.inner_text()).strip()
        if name and name not in names:
            names.append(name)
    return names
