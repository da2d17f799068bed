"""`oraculum doctor --live` on Gemini: the signed-in marker for the session, the job's own
readiness wait, then each control a job meets, read only (a menu is opened and closed, nothing
is typed, chosen or uploaded)."""

from __future__ import annotations

import asyncio
from typing import Any

from playwright.async_api import Page

from oraculum.core.config import Config, provider_urls
from oraculum.providers.base import ProbeEntry
from oraculum.providers.gemini import vocabulary as vocab
from oraculum.providers.gemini.model import current_mode
from oraculum.providers.gemini.page import GeminiPage
from oraculum.providers.gemini.page_state import allowed_origins
from oraculum.providers.gemini.readiness import wait_until_ready
from oraculum.providers.page import menu_entries

MENU_SETTLE_S = 0.5
IDENTITY_WAIT_S = 5.0


class GeminiLiveProbe:
    """Gemini's `LiveProbe` (its registry entry's ``live_probe``). Gemini has no identity
    endpoint the facts name: the Google Account link (facts §1.2) is the session's proof."""

    def __init__(self, page: Page) -> None:
        self.gemini = GeminiPage(page)

    async def identity(self) -> tuple[int, str | None]:
        account = self.gemini.page.locator(vocab.ACCOUNT_SELECTOR)
        try:
            await account.first.wait_for(state="attached", timeout=IDENTITY_WAIT_S * 1000)
        except Exception:  # no marker within the wait: a signed-out page
            return 401, None
        label = (await account.first.get_attribute("aria-label")) or ""
        return 200, label.partition(":")[2].strip() or None

    async def wait_ready(self, config: Config) -> None:
        async def quiet(_state: Any) -> None:
            return None

        gemini_url, _ = provider_urls(config, "gemini")
        await wait_until_ready(
            self.gemini,
            allowed_origins(gemini_url),
            timeout_s=config.worker.readiness_timeout_ms / 1000,
            on_failure=quiet,
            log=lambda _message: None,
        )

    async def entries(self) -> list[ProbeEntry]:
        seen = await self.gemini.observe()
        entries = [
            ProbeEntry("composer", vocab.EDITABLE_SELECTOR, _yes(seen.editable), seen.editable),
            ProbeEntry(
                "upload & tools",
                f'button "{vocab.TOOLS_LABEL}"',
                _yes(seen.tools_present),
                seen.tools_present,
            ),
        ]
        entries.append(await self._upload_entry(seen.tools_present))
        shows = current_mode(await self.gemini.mode_label())
        entries.append(
            ProbeEntry(
                "mode picker",
                f"{vocab.MODE_BUTTON_SELECTOR} naming the current mode",
                f"currently {shows}" if shows else "not found",
                bool(shows),
            )
        )
        return entries

    async def _upload_entry(self, tools_present: bool) -> ProbeEntry:
        wanted = f"{vocab.UPLOAD_ENTRY.pattern} in its menu"
        if not tools_present:
            return ProbeEntry("upload entry", wanted, "menu not opened", False)
        tools = self.gemini.tools_button().first
        await tools.click()
        await asyncio.sleep(MENU_SETTLE_S)
        offered = await menu_entries(self.gemini.page, vocab.MENU_SELECTORS)
        if await tools.get_attribute("aria-expanded") == "true":
            await self.gemini.page.keyboard.press("Escape")
        found = [name for name in offered if vocab.UPLOAD_ENTRY.match(name)]
        return ProbeEntry("upload entry", wanted, ", ".join(offered) or "nothing", bool(found))


def _yes(present: bool) -> str:
    return "present" if present else "not found"
