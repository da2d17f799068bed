"""What every provider's tab wrapper shares: packaged in-page scripts evaluated with the
provider's vocabulary, and a default timeout that fails a step instead of hanging."""

from __future__ import annotations

from typing import Any, ClassVar

from playwright.async_api import Page

from oraculum.capture.page import packaged_script

__all__ = ["ScriptedPage"]


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
