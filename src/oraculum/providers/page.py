"""What every provider's tab wrapper shares: packaged in-page scripts evaluated with the
provider's vocabulary, and a default timeout that fails a step instead of hanging."""

from __future__ import annotations

from typing import Any, ClassVar

from playwright.async_api import Locator, Page

from oraculum.capture.page import packaged_script

__all__ = ["ScriptedPage", "button_names", "menu_entries"]


class ScriptedPage:
    """A tab driven through one provider's vocabulary and its ``js/`` scripts."""

    ACTION_TIMEOUT_MS = 15_000
    SCRIPTS_PACKAGE: ClassVar[str]  # the package whose js/ folder holds the page scripts

    def __init__(self, page: Page, vocabulary: dict[str, Any]) -> None:
        self.page = page
        self.vocabulary = vocabulary
        # A control that never appears should fail this step, not hang for Playwright's 30 s.
        page.set_default_timeout(self.ACTION_TIMEOUT_MS)

    def script(self, name: str) -> str:
        return packaged_script(self.SCRIPTS_PACKAGE, f"js/{name}")

    async def evaluate(self, name: str, **extra: Any) -> Any:
        """Run the page script ``name`` with the vocabulary (and ``extra``) as its argument."""
        return await self.page.evaluate(self.script(name), {**self.vocabulary, **extra})


async def menu_entries(page: Page, menu_selectors: tuple[str, ...]) -> list[str]:
    """The titles of the entries the page's open menus show (for an error that says what a
    menu offered instead of what was wanted)."""
    script = packaged_script("oraculum.providers", "js/menu_entries.js")
    return list(await page.evaluate(script, {"menuSelectors": list(menu_selectors)}))


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
