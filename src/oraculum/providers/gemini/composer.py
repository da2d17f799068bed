"""Gemini's composer: attach the archive, type the prompt, send it — and know whether it left.

Send acceptance is every provider's rule (`providers.send`) over Gemini's reading.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.providers import composer_steps as steps
from oraculum.providers import upload
from oraculum.providers.gemini import vocabulary as vocab
from oraculum.providers.gemini.page import GeminiPage
from oraculum.providers.gemini.page_state import rate_limited, upload_error
from oraculum.providers.send import SendBaseline
from oraculum.providers.turns import TurnsReading

__all__ = [
    "SendBaseline",
    "attach_archive",
    "click_send",
    "fill_prompt",
    "wait_accepted",
    "wait_send_ready",
]

POLL_S = 0.25
MENU_SETTLE_S = 0.5  # facts §1.6: the file input exists only while "Upload & tools" is open
UPLOAD_ROUTE = upload.UploadRoute(
    file_input_selector=vocab.FILE_INPUT_SELECTOR,
    entry_pattern=vocab.UPLOAD_ENTRY,
    menu_selectors=vocab.MENU_SELECTORS,
    wanted=f'a file input or an upload entry in "{vocab.TOOLS_LABEL}"',
)


_rate_limit_error = partial(steps.rate_limit_error, "Gemini")
_upload_failed = steps.upload_failed


def upload_confirmed(composer_text: str, archive_name: str, busy: bool) -> bool:
    """The input area's chip names the archive, shows no visible progress and no upload error
    beside it (facts §1.6)."""
    return archive_name in composer_text and not busy and upload_error(composer_text) is None


async def attach_archive(
    gemini: GeminiPage,
    archive: Path,
    *,
    timeout_s: float,
    log: Callable[[str], None] | None = None,
) -> None:
    """Attach ``archive``; confirmed once its chip is done on two consecutive polls."""
    if not archive.exists():
        raise OracleError(ErrorCode.ARCHIVE_MISSING, f"Archive missing: {archive}")
    tools = gemini.tools_button()
    if not await gemini.present(tools, vocab.TOOLS_LABEL):
        raise OracleError(
            ErrorCode.COMPOSER_NOT_FOUND, f'Could not find Gemini\'s "{vocab.TOOLS_LABEL}"'
        )
    await gemini.guarded_click(tools.first, vocab.TOOLS_LABEL)
    await asyncio.sleep(MENU_SETTLE_S)
    route = await upload.choose_file(gemini, UPLOAD_ROUTE, archive)
    if log:
        log(f"archive set through the {route}")
    if await tools.first.get_attribute("aria-expanded") == "true":
        await gemini.guarded_press("Escape", "the Upload & tools menu")
    seen = 0
    composer = ""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        composer = await gemini.composer_text()
        scoped = await gemini.scoped_text()
        failed = upload_error(composer) or upload_error(scoped)
        if failed:
            raise _upload_failed(failed)
        limited = rate_limited(scoped)
        if limited:
            raise _rate_limit_error("uploading the archive", limited)
        busy = await gemini.chip_busy()
        seen = seen + 1 if upload_confirmed(composer, archive.name, busy) else 0
        if seen >= 2:
            return
        await asyncio.sleep(POLL_S)
    raise OracleError(
        ErrorCode.UPLOAD_NOT_CONFIRMED,
        f"The upload of {archive.name} was not confirmed within {timeout_s:.0f}s: the composer "
        "does not show it.",
        retryable=True,
        details={"composerText": composer[:500]},
    )


async def fill_prompt(gemini: GeminiPage, prompt: str) -> None:
    """Replace whatever the composer holds with exactly ``prompt`` (facts §1.3's typing)."""
    await steps.fill_prompt(gemini, prompt, "Gemini")


async def wait_send_ready(gemini: GeminiPage, *, timeout_s: float) -> None:
    """Send shown and enabled (facts §1.3: it appears once text is typed)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        send = gemini.send_button().locator(vocab.VISIBLE_ONLY)
        if await send.count() and await send.first.is_enabled():
            return
        scoped = await gemini.scoped_text()
        failed = upload_error(scoped) or upload_error(await gemini.composer_text())
        if failed:
            raise _upload_failed(failed)
        limited = rate_limited(scoped)
        if limited:
            raise _rate_limit_error("waiting to send", limited)
        await asyncio.sleep(POLL_S)
    raise OracleError(
        ErrorCode.SEND_NOT_READY,
        "Timed out waiting for Gemini's Send to become enabled",
        retryable=True,
    )


async def click_send(gemini: GeminiPage) -> None:
    send = gemini.send_button()
    if not await gemini.present(send, vocab.SEND_LABEL):
        raise OracleError(
            ErrorCode.SEND_NOT_FOUND, "Gemini's Send button disappeared before the click."
        )
    await gemini.guarded_click(send.first, vocab.SEND_LABEL)


async def wait_accepted(
    gemini: GeminiPage, before: SendBaseline, *, timeout_s: float
) -> TurnsReading:
    return await steps.wait_accepted(
        gemini,
        before,
        timeout_s=timeout_s,
        label="Gemini",
        send_label=vocab.SEND_LABEL,
        rate_limited=rate_limited,
    )
