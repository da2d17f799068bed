"""The composer steps every chat site with one editor shares (Grok's, Gemini's): attach the
archive through the upload menu and confirm it by its chip, type the prompt and check the editor
holds it, wait for Send, click it, wait for the page to show the message left, and the errors
they raise. Each provider's composer passes its words (`ComposerWords`: its name, its controls'
names, its upload route and its readings of failure); the view is its page
(`providers.page.ChatPage` with `upload_opener`, `close_upload_menu`, `upload_busy`,
`send_control` and `send_ready`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.providers import upload
from oraculum.providers.send import SendBaseline, send_accepted, squash
from oraculum.providers.turns import TurnsReading

__all__ = [
    "ComposerWords",
    "attach_archive",
    "click_send",
    "fill_prompt",
    "rate_limit_error",
    "upload_confirmed",
    "upload_failed",
    "wait_accepted",
    "wait_send_ready",
]

POLL_S = 0.25
EDITOR_WAIT_S = 15.0
# The file input appears once the upload menu has opened (Grok: facts §5; Gemini: facts §1.6,
# only while "Upload & tools" is open).
MENU_SETTLE_S = 0.5

Reading = Callable[[str], str | None]  # a page text -> the evidence of a state, if shown


@dataclass(frozen=True)
class ComposerWords:
    """One site's words for its composer (from its vocabulary and page_state)."""

    label: str  # how messages name the site
    send_label: str  # how messages name its Send control
    opener_label: str  # how messages name the control that opens its upload menu
    route: upload.UploadRoute
    rate_limited: Reading
    upload_error: Reading


def upload_confirmed(
    composer_text: str, archive_name: str, *, busy: bool, upload_error: Reading
) -> bool:
    """The composer's chip names the archive, shows no visible progress and no upload error
    beside it."""
    return archive_name in composer_text and not busy and upload_error(composer_text) is None


async def attach_archive(
    view: Any,
    archive: Path,
    words: ComposerWords,
    *,
    timeout_s: float,
    log: Callable[[str], None] | None = None,
) -> None:
    """Attach ``archive``; confirmed once its chip is done on two consecutive polls."""
    if not archive.exists():
        raise OracleError(ErrorCode.ARCHIVE_MISSING, f"Archive missing: {archive}")
    opener = view.upload_opener()
    if not await view.present(opener, words.opener_label):
        raise OracleError(
            ErrorCode.COMPOSER_NOT_FOUND, f'Could not find {words.label}\'s "{words.opener_label}"'
        )
    await view.guarded_click(opener.first, words.opener_label)
    await asyncio.sleep(MENU_SETTLE_S)
    route = await upload.choose_file(view, words.route, archive)
    if log:
        log(f"archive set through the {route}")
    await view.close_upload_menu()
    seen = 0
    composer = ""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        composer = await view.composer_text()
        await _refuse_shown(view, words, "uploading the archive", composer)
        done = upload_confirmed(
            composer, archive.name, busy=await view.upload_busy(), upload_error=words.upload_error
        )
        seen = seen + 1 if done else 0
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


async def _refuse_shown(view: Any, words: ComposerWords, context: str, composer: str) -> None:
    """Raise what the page shows went wrong: an upload error (in the composer or outside the
    turns), else a rate-limit message."""
    scoped = await view.scoped_text()
    failed = words.upload_error(composer) or words.upload_error(scoped)
    if failed:
        raise upload_failed(failed)
    limited = words.rate_limited(scoped)
    if limited:
        raise rate_limit_error(words.label, context, limited)


async def wait_send_ready(view: Any, words: ComposerWords, *, timeout_s: float) -> None:
    """Send shown and enabled (a site keeps it hidden or disabled while an attachment is still
    uploading, or until text is typed)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if await view.send_ready():
            return
        await _refuse_shown(view, words, "waiting to send", await view.composer_text())
        await asyncio.sleep(POLL_S)
    raise OracleError(
        ErrorCode.SEND_NOT_READY,
        f"Timed out waiting for {words.label}'s {words.send_label} to become enabled",
        retryable=True,
    )


async def click_send(view: Any, words: ComposerWords) -> None:
    send = view.send_control()
    if not await view.present(send, words.send_label):
        raise OracleError(
            ErrorCode.SEND_NOT_FOUND,
            f"{words.label}'s {words.send_label} button disappeared before the click.",
        )
    await view.guarded_click(send.first, words.send_label)


def rate_limit_error(label: str, context: str, evidence: str) -> OracleError:
    return OracleError(
        ErrorCode.PROVIDER_RATE_LIMITED,
        f"{label} is showing a rate-limit message while {context}: {evidence}",
        retryable=True,
        suggested_next_step="Wait a while before submitting again.",
    )


def upload_failed(evidence: str) -> OracleError:
    return OracleError(
        ErrorCode.UPLOAD_FAILED,
        f"Upload error detected: {evidence}",
        retryable=True,
        suggested_next_step="Retry; if it persists, narrow the archive.",
    )


async def fill_prompt(view: Any, prompt: str, words: ComposerWords) -> None:
    """Replace whatever the composer holds with exactly ``prompt`` (`js/insert_text.js`)."""
    label = words.label
    deadline = time.monotonic() + EDITOR_WAIT_S
    result: dict = {"ok": False, "reason": "not-editable", "text": ""}
    while time.monotonic() < deadline:
        await view.obstacles.clear(view.composer(), "the composer")
        result = await view.insert_text(prompt)
        if result["ok"]:
            break
        await asyncio.sleep(POLL_S)
    if not result["ok"]:
        raise OracleError(
            ErrorCode.COMPOSER_NOT_READY,
            f"The {label} composer never became editable ({result['reason']}); nothing was sent.",
            retryable=True,
        )
    if squash(result["text"]) != squash(prompt):
        raise OracleError(
            ErrorCode.COMPOSER_NOT_READY,
            f"The {label} composer does not hold the prompt after typing it; nothing was sent.",
            retryable=True,
        )


async def wait_accepted(
    view: Any, before: SendBaseline, words: ComposerWords, *, timeout_s: float
) -> TurnsReading:
    """The reading that shows the message left (`providers.send`), or why it did not."""
    label = words.label
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        reading: TurnsReading = await view.turns()
        if send_accepted(before, reading):
            return reading
        limited = words.rate_limited(await view.scoped_text())
        if limited:
            raise rate_limit_error(label, "sending", limited)
        await asyncio.sleep(POLL_S)
    raise OracleError(
        ErrorCode.SEND_NOT_ACCEPTED,
        f"{label} did not accept the message after {words.send_label} was clicked. The prompt "
        f"may or may not have reached {label}: resubmitting could send it twice — check the "
        "conversation first.",
        suggested_next_step=f"Open {label} and look for the message before resubmitting.",
    )
