"""The composer: attach the archive, fill the prompt, send it — and know whether it left."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from enum import StrEnum
from pathlib import Path

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.providers import upload
from oraculum.providers.chatgpt import vocabulary as vocab
from oraculum.providers.chatgpt.page import ChatGPTPage, ChipReading
from oraculum.providers.chatgpt.page_state import rate_limited, upload_error
from oraculum.providers.send import SendBaseline, send_accepted, squash
from oraculum.providers.turns import TurnsReading

UPLOAD_POLL_S = 0.1
# A chip can flicker between states while it processes: done must hold this long, on every
# poll in between, before the upload counts as done.
UPLOAD_STABLE_S = 0.25
EDITOR_WAIT_S = 15.0
EDITOR_POLL_S = 0.1
SEND_READY_POLL_S = 0.1
ACCEPT_POLL_S = 0.1
UPLOAD_ROUTE = upload.UploadRoute(
    file_input_selector=vocab.FILE_INPUT_SELECTOR,
    entry_pattern=vocab.UPLOAD_ENTRY,
    menu_selectors=vocab.MENU_SELECTORS,
    wanted=f'a file input or an upload entry in "{vocab.ADD_FILES_LABEL}"',
    elsewhere=(vocab.COMPOSER_EDITOR_SELECTOR, *vocab.TURN_CONTAINER_SELECTORS),
)
SEND_WANTED = "the Send button"  # how the obstacle layer's records name it


def _rate_limit_error(context: str, evidence: str) -> OracleError:
    return OracleError(
        ErrorCode.PROVIDER_RATE_LIMITED,
        f"ChatGPT is showing a rate-limit page while {context}: {evidence}",
        retryable=True,
        suggested_next_step="Wait a while before submitting again.",
    )


class ChipState(StrEnum):
    ABSENT = "absent"
    BUSY = "busy"
    ERROR = "error"
    DONE = "done"


def chip_state(reading: ChipReading, file_name: str) -> ChipState:
    """What the attachment chip says about its upload. Done means present, with no progress
    or busy marker and no busy or error words; Send's state is never the signal (some pages
    enable Send only once the composer holds text, others before processing ends)."""
    if not reading.found:
        return ChipState.ABSENT
    text = reading.text.replace(file_name, " ")
    if reading.error_markers or upload_error(text):
        return ChipState.ERROR
    if reading.busy_markers or any(p.search(text) for p in vocab.UPLOAD_CHIP_BUSY_PATTERNS):
        return ChipState.BUSY
    return ChipState.DONE


async def attach_archive(
    chat: ChatGPTPage,
    archive: Path,
    *,
    timeout_s: float,
    heartbeat: Callable[[], Awaitable[None]] | None = None,
    log: Callable[[str], None] | None = None,
) -> None:
    """Attach ``archive`` and wait until the composer's chip for it says the upload is done
    (and keeps saying so for :data:`UPLOAD_STABLE_S`)."""
    if not archive.exists():
        raise OracleError(ErrorCode.ARCHIVE_MISSING, f"Archive missing: {archive}")
    add = chat.add_files()
    if not await chat.present(add, vocab.ADD_FILES_LABEL):
        raise OracleError(
            ErrorCode.COMPOSER_NOT_FOUND, f'Could not find "{vocab.ADD_FILES_LABEL}" button'
        )
    await chat.guarded_click(add.first, vocab.ADD_FILES_LABEL)
    route = await upload.choose_file(chat, UPLOAD_ROUTE, archive)
    if log:
        log(f"archive set through the {route}")
    done_since: float | None = None
    last = ChipReading(found=False, text="", busy_markers=0, error_markers=0)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        scoped = await chat.scoped_text()
        last = await chat.upload_chip_reading(archive.name)
        state = chip_state(last, archive.name)
        failed = upload_error(scoped) or (last.text if state == ChipState.ERROR else None)
        if failed:
            raise OracleError(
                ErrorCode.UPLOAD_FAILED,
                f"Upload error detected: {failed}",
                retryable=True,
                suggested_next_step="Retry; if it persists, narrow the archive.",
            )
        limited = rate_limited(scoped)
        if limited:
            raise _rate_limit_error("uploading the archive", limited)
        if state != ChipState.DONE:
            done_since = None
        elif done_since is None:
            done_since = time.monotonic()
        elif time.monotonic() - done_since >= UPLOAD_STABLE_S:
            return
        if heartbeat:
            await heartbeat()
        await asyncio.sleep(UPLOAD_POLL_S)
    state = chip_state(last, archive.name)
    raise OracleError(
        ErrorCode.UPLOAD_NOT_CONFIRMED,
        f"The upload of {archive.name} was not confirmed within {timeout_s:.0f}s: the chip is "
        + (f"{state.value} ({last.text!r})." if last.found else "not shown in the composer."),
        retryable=True,
        details={"chipState": state.value, "chipText": last.text},
        suggested_next_step="Retry; if it persists, run `oraculum doctor --live`.",
    )


async def fill_prompt(chat: ChatGPTPage, prompt: str) -> None:
    """Replace whatever the composer holds (ChatGPT restores drafts) with exactly ``prompt``."""
    deadline = time.monotonic() + EDITOR_WAIT_S
    cleared: dict = {"ok": False, "reason": "not-editable"}
    while time.monotonic() < deadline:
        await chat.obstacles.clear(chat.composer(), "the composer")  # an inert page has no focus
        cleared = await chat.clear_composer()
        if cleared["ok"]:
            break
        await asyncio.sleep(EDITOR_POLL_S)
    if not cleared["ok"]:
        raise OracleError(
            ErrorCode.COMPOSER_NOT_READY,
            "Could not clear the ChatGPT composer draft; the prompt was not inserted "
            f"({cleared['reason']}).",
            retryable=True,
        )
    composer = chat.composer()
    if not await chat.present(composer, "the composer"):
        raise OracleError(
            ErrorCode.COMPOSER_NOT_FOUND, "Could not find the ChatGPT composer textbox"
        )
    await chat.guarded_fill(composer.first, prompt, "the composer")
    shown = await chat.page.locator(vocab.COMPOSER_EDITOR_SELECTOR).first.inner_text()
    if squash(shown) != squash(prompt):
        raise OracleError(
            ErrorCode.COMPOSER_NOT_READY,
            "The ChatGPT composer does not hold the prompt after filling it; nothing was sent.",
            retryable=True,
        )


async def wait_send_ready(
    chat: ChatGPTPage,
    *,
    timeout_s: float,
    heartbeat: Callable[[], Awaitable[None]] | None = None,
) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        send = chat.send_button()
        if await chat.present(send, SEND_WANTED) and await send.first.is_enabled():
            return
        scoped = await chat.scoped_text()
        failed = upload_error(scoped)
        if failed:
            raise OracleError(
                ErrorCode.UPLOAD_FAILED, f"Upload error detected: {failed}", retryable=True
            )
        limited = rate_limited(scoped)
        if limited:
            raise _rate_limit_error("waiting to send", limited)
        if heartbeat:
            await heartbeat()
        await asyncio.sleep(SEND_READY_POLL_S)
    raise OracleError(
        ErrorCode.SEND_NOT_READY, "Timed out waiting for Send to become enabled", retryable=True
    )


async def click_send(chat: ChatGPTPage) -> None:
    send = chat.send_button()
    if not await chat.present(send, SEND_WANTED):
        raise OracleError(
            ErrorCode.SEND_NOT_FOUND, "The Send button disappeared before it was clicked."
        )
    await chat.guarded_click(send.first, SEND_WANTED)


async def wait_accepted(
    chat: ChatGPTPage, before: SendBaseline, *, timeout_s: float
) -> TurnsReading:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        reading = await chat.turns()
        if send_accepted(before, reading):
            return reading
        limited = rate_limited(await chat.scoped_text())
        if limited:
            raise _rate_limit_error("sending", limited)
        await asyncio.sleep(ACCEPT_POLL_S)
    raise OracleError(
        ErrorCode.SEND_NOT_ACCEPTED,
        "ChatGPT did not accept the message after Send was clicked. The prompt may or may not "
        "have reached ChatGPT: resubmitting could send it twice — check the conversation first.",
        suggested_next_step="Open ChatGPT and look for the message before resubmitting.",
    )
