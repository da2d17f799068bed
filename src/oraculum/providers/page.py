"""What every provider's tab wrapper shares: packaged in-page scripts evaluated with the
provider's vocabulary, a default timeout that fails a step instead of hanging, and the obstacle
layer every action goes through (`guarded_click` and friends)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from playwright.async_api import Locator, Page

from oraculum.capture.page import packaged_script
from oraculum.providers.obstacle_guard import ObstacleGuard, ObstacleVocabulary

__all__ = ["ScriptedPage", "button_names", "menu_entries", "page_language"]


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
