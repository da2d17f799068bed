"""Grok's composer: attach the archive, type the prompt, send it — and know whether it left.

Send acceptance is every provider's rule (`providers.send`) over Grok's reading.
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
from oraculum.providers.grok import vocabulary as vocab
from oraculum.providers.grok.page import GrokPage
from oraculum.providers.grok.page_state import rate_limited, upload_error
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
MENU_SETTLE_S = 0.5  # facts §5: Attach, then the file input once its menu has opened
UPLOAD_ROUTE = upload.UploadRoute(
    file_input_selector=vocab.FILE_INPUT_SELECTOR,
    entry_pattern=vocab.UPLOAD_ENTRY,
    menu_selectors=vocab.MENU_SELECTORS,
    wanted=f'a file input or an upload entry in "{vocab.ATTACH_LABEL}"',
)


_rate_limit_error = partial(steps.rate_limit_error, "Grok")
_upload_failed = steps.upload_failed


def upload_confirmed(composer_text: str, archive_name: str) -> bool:
    """The composer names the archive (its chip) without an upload error beside it."""
    return archive_name in composer_text and upload_error(composer_text) is None


async def attach_archive(
    grok: GrokPage,
    archive: Path,
    *,
    timeout_s: float,
    log: Callable[[str], None] | None = None,
) -> None:
    """Attach ``archive``; confirmed once the composer names it on two consecutive polls."""
    if not archive.exists():
        raise OracleError(ErrorCode.ARCHIVE_MISSING, f"Archive missing: {archive}")
    attach = grok.attach_button()
    if not await grok.present(attach, vocab.ATTACH_LABEL):
        raise OracleError(
            ErrorCode.COMPOSER_NOT_FOUND, f'Could not find Grok\'s "{vocab.ATTACH_LABEL}"'
        )
    await grok.guarded_click(attach.first, vocab.ATTACH_LABEL)
    await asyncio.sleep(MENU_SETTLE_S)
    route = await upload.choose_file(grok, UPLOAD_ROUTE, archive)
    if log:
        log(f"archive set through the {route}")
    await grok.guarded_press("Escape", "the attach menu")  # close it if it is still open
    seen = 0
    composer = ""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        composer = await grok.composer_text()
        scoped = await grok.scoped_text()
        failed = upload_error(composer) or upload_error(scoped)
        if failed:
            raise _upload_failed(failed)
        limited = rate_limited(scoped)
        if limited:
            raise _rate_limit_error("uploading the archive", limited)
        seen = seen + 1 if upload_confirmed(composer, archive.name) else 0
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


async def fill_prompt(grok: GrokPage, prompt: str) -> None:
    """Replace whatever the composer holds with exactly ``prompt`` (facts §5's typing)."""
    await steps.fill_prompt(grok, prompt, "Grok")


async def wait_send_ready(grok: GrokPage, *, timeout_s: float) -> None:
    """Submit enabled (Grok keeps it disabled while an attachment is still uploading)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        submit = grok.submit_button()
        if await grok.present(submit, vocab.SUBMIT_LABEL) and await submit.first.is_enabled():
            return
        scoped = await grok.scoped_text()
        failed = upload_error(scoped) or upload_error(await grok.composer_text())
        if failed:
            raise _upload_failed(failed)
        limited = rate_limited(scoped)
        if limited:
            raise _rate_limit_error("waiting to send", limited)
        await asyncio.sleep(POLL_S)
    raise OracleError(
        ErrorCode.SEND_NOT_READY,
        "Timed out waiting for Grok's Submit to become enabled",
        retryable=True,
    )


async def click_send(grok: GrokPage) -> None:
    submit = grok.submit_button()
    if not await grok.present(submit, vocab.SUBMIT_LABEL):
        raise OracleError(
            ErrorCode.SEND_NOT_FOUND, "Grok's Submit button disappeared before the click."
        )
    await grok.guarded_click(submit.first, vocab.SUBMIT_LABEL)


async def wait_accepted(grok: GrokPage, before: SendBaseline, *, timeout_s: float) -> TurnsReading:
    return await steps.wait_accepted(
        grok,
        before,
        timeout_s=timeout_s,
        label="Grok",
        send_label=vocab.SUBMIT_LABEL,
        rate_limited=rate_limited,
    )
