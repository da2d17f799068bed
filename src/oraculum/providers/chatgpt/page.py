"""A ChatGPT tab, read and driven through the vocabulary: the only place the driver touches
Playwright locators and in-page scripts."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from playwright.async_api import Locator, Page

from oraculum.providers.chatgpt import vocabulary as vocab
from oraculum.providers.chatgpt.page_state import PageObservation
from oraculum.providers.locales import exact_any
from oraculum.providers.page import ScriptedPage
from oraculum.providers.turns import TurnsReading


@dataclass(frozen=True)
class ChipReading:
    """The composer's attachment chip for one file, at one instant."""

    found: bool
    text: str
    busy_markers: int
    error_markers: int

    @classmethod
    def from_js(cls, data: dict[str, Any]) -> ChipReading:
        return cls(
            found=bool(data.get("found")),
            text=str(data.get("text") or ""),
            busy_markers=int(data.get("busy") or 0),
            error_markers=int(data.get("error") or 0),
        )


class ChatGPTPage(ScriptedPage):
    SCRIPTS_PACKAGE = "oraculum.providers.chatgpt"

    def __init__(self, page: Page) -> None:
        super().__init__(page, vocab.page_vocabulary(), vocab.obstacle_vocabulary())

    # Locators ------------------------------------------------------------------------------

    def composer(self) -> Locator:
        """The composer's textbox: by a known name first, else the textbox of the composer form,
        whatever it is called — never the Work composer (another product)."""
        named = self.page.get_by_role("textbox", name=exact_any(vocab.COMPOSER_LABELS))
        return named.or_(self.composer_region().get_by_role("textbox", name=NOT_WORK_COMPOSER))

    def composer_region(self) -> Locator:
        """The composer form: the one holding the editor, the upload button or Send (found by
        structure, so that a renamed editor still has its form)."""
        anchors = (
            self.page.locator(vocab.COMPOSER_EDITOR_SELECTOR)
            .or_(self.add_files())
            .or_(self.send_button())
        )
        return self.page.locator(vocab.COMPOSER_REGION_SELECTOR).filter(has=anchors)

    def add_files(self) -> Locator:
        return self.page.get_by_role("button", name=exact_any(vocab.ADD_FILES_LABELS))

    def send_button(self) -> Locator:
        return self.page.get_by_role("button", name=exact_any(vocab.SEND_LABELS))

    def retry_button(self) -> Locator:
        return self.page.get_by_role("button", name=exact_any(vocab.RETRY_LABELS))

    # Readings ------------------------------------------------------------------------------

    async def composer_ready(self) -> bool:
        composer = self.composer()
        if await composer.count() == 0:
            return False
        editable = await self.evaluate("composer_editable.js")
        add = self.add_files()
        return editable and await add.count() > 0 and await add.first.is_enabled()

    async def observe(self) -> PageObservation:
        seen = await self.evaluate("observe.js")
        me = await self.evaluate("me_probe.js")
        work = await self.page.get_by_role("textbox", name=vocab.WORK_COMPOSER_LABEL).count()
        ready = await self.composer_ready()
        return PageObservation(
            url=seen["url"],
            scoped_text=seen["scopedText"],
            login_cta=seen["loginCta"],
            on_auth_page=seen["onAuthPage"],
            me_status=me["status"],
            me_identity=bool(me["hasId"] or me["hasEmail"]),
            composer_ready=ready,
            work_composer=work > 0,
            composer_seen="" if ready else await self.composer_seen(),
        )

    async def identity(self) -> tuple[int, str | None]:
        """What the app's own backend says of this browser's session: its HTTP status, and the
        account's email (or name) when it names one."""
        me = await self.evaluate("me_probe.js")
        return int(me.get("status") or 0), me.get("identity")

    async def composer_seen(self) -> str:
        """What the page offers instead of a ready composer (for the error that says so)."""
        labels = list(vocab.ADD_FILES_LABELS)
        return str(await self.evaluate("composer_seen.js", addFilesLabels=labels))

    async def scoped_text(self) -> str:
        return (await self.evaluate("observe.js"))["scopedText"]

    async def turns(self, archive_name: str | None = None) -> TurnsReading:
        """The conversation now; with ``archive_name``, also where the job's exchange is."""
        return TurnsReading.from_js(await self.evaluate("turns.js", archiveName=archive_name))

    async def clear_composer(self) -> dict[str, Any]:
        return await self.evaluate("clear_composer.js")

    async def described_by(self, element: Locator) -> str:
        """The text ``element``'s aria-describedby points at."""
        return str(await element.evaluate(self.script("described_by.js")))

    async def upload_chip_reading(self, file_name: str) -> ChipReading:
        return ChipReading.from_js(await self.evaluate("upload_chip.js", fileName=file_name))


# Any accessible name but the Work composer's (an empty name included).
NOT_WORK_COMPOSER = re.compile(rf"^(?!{re.escape(vocab.WORK_COMPOSER_LABEL)}$)")
