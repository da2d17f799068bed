"""Putting the archive into a page's upload control: the standing file input when the page has
one, else the browser's file chooser that the attach menu's upload entry opens (some pages
create their file input only for that click and remove it afterwards).

Shared by the providers: each passes its own vocabulary (the entry's pattern, where its menus
are) and has already opened its attach menu.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from playwright.async_api import Locator, Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from oraculum.capture.page import packaged_script
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.providers.page import ScriptedPage, menu_entries

__all__ = ["UploadRoute", "choose_file", "control_not_found", "visible_entries"]

# The menu animates open: the entry is looked for this long before the page is said to have none.
ENTRY_WAIT_S = 4.0
ENTRY_POLL_S = 0.2
# After the entry's click the chooser opens at once on a working page.
CHOOSER_WAIT_S = 10.0


@dataclass(frozen=True)
class UploadRoute:
    """One provider's upload vocabulary."""

    file_input_selector: str
    entry_pattern: re.Pattern[str]  # the attach menu's upload entry, matched whole
    menu_selectors: tuple[str, ...]  # where the open menu's entries are read for an error
    wanted: str  # how an error names what was looked for
    # Where an entry's text never counts (the editor, the turns: a prompt can say "Upload …").
    elsewhere: tuple[str, ...] = ()


def control_not_found(wanted: str, observed: Sequence[str], why: str) -> OracleError:
    shown = ", ".join(repr(entry) for entry in observed) or "no entries"
    return OracleError(
        ErrorCode.UPLOAD_CONTROL_NOT_FOUND,
        f"Could not find an upload control: wanted {wanted}; {why}; the menu showed {shown}. "
        "Nothing was sent.",
        details={"wanted": wanted, "observed": list(observed)},
        suggested_next_step="The site's upload menu may have changed: run `oraculum doctor "
        "--live` and see the job's diagnostics.",
    )


async def choose_file(view: ScriptedPage, route: UploadRoute, path: Path) -> str:
    """Set ``path`` on the page's upload control, behind the view's obstacle layer; returns how
    ("file input" or "file chooser"). The attach menu must be open already."""
    page = view.page
    standing = page.locator(route.file_input_selector)
    if await standing.count():
        await view.guarded_set_files(standing.first, path, "the file input")
        return "file input"
    entry = await _entry(page, route)
    if entry is None:
        observed = await menu_entries(page, route.menu_selectors)
        raise control_not_found(route.wanted, observed, "the page has no file input")
    try:
        # The click stays inside the wait: a chooser opened before it would be missed.
        async with page.expect_file_chooser(timeout=CHOOSER_WAIT_S * 1000) as chooser:
            await view.guarded_click(entry, "the upload entry")
        await (await chooser.value).set_files(str(path))
    except PlaywrightTimeout:
        observed = await menu_entries(page, route.menu_selectors)
        raise control_not_found(
            route.wanted, observed, f"its entry opened no file chooser within {CHOOSER_WAIT_S:.0f}s"
        ) from None
    return "file chooser"


def visible_entries(page: Page, route: UploadRoute) -> Locator:
    """Every visible element whose text is an upload entry's title or description."""
    return page.get_by_text(route.entry_pattern).locator("visible=true")


async def _entry(page: Page, route: UploadRoute) -> Locator | None:
    """The visible upload entry outside the editor and the turns (polled: menus animate)."""
    candidates = visible_entries(page, route)
    outside = packaged_script("oraculum.providers", "js/not_within.js")
    deadline = time.monotonic() + ENTRY_WAIT_S
    while True:
        for index in range(await candidates.count()):
            entry = candidates.nth(index)
            if not route.elsewhere or await entry.evaluate(outside, ", ".join(route.elsewhere)):
                return entry
        if time.monotonic() >= deadline:
            return None
        await asyncio.sleep(ENTRY_POLL_S)
