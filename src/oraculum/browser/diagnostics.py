"""What a page looked like when something went wrong: URL, accessibility tree, text, picture.

Written into the job's `logs/` as `<reason>.url.txt`, `.aria.txt`, `.text.txt` and `.png`.
Every capture is best-effort and time-bounded: diagnostics must never mask the real error.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from playwright.async_api import Page

from oraculum.core.fsio import atomic_write_text, ensure_private_dir

CAPTURE_TIMEOUT_S = 5.0


async def capture_diagnostics(
    page: Page, logs_dir: Path, reason: str, *, scoped_text: str | None = None
) -> list[Path]:
    ensure_private_dir(logs_dir)
    written: list[Path] = []

    async def save_text(suffix: str, produce) -> None:
        with contextlib.suppress(Exception):
            text = await asyncio.wait_for(produce(), CAPTURE_TIMEOUT_S)
            path = logs_dir / f"{reason}.{suffix}"
            atomic_write_text(path, text if text.endswith("\n") else text + "\n")
            written.append(path)

    async def url() -> str:
        return page.url

    async def aria() -> str:
        return await page.locator("body").aria_snapshot()

    async def text() -> str:
        return scoped_text if scoped_text is not None else await page.inner_text("body")

    await save_text("url.txt", url)
    await save_text("aria.txt", aria)
    await save_text("text.txt", text)
    with contextlib.suppress(Exception):
        path = logs_dir / f"{reason}.png"
        await asyncio.wait_for(page.screenshot(path=str(path), full_page=False), CAPTURE_TIMEOUT_S)
        path.chmod(0o600)
        written.append(path)
    return written
