"""The composer steps every chat site with one editor shares (Grok's, Gemini's): type the
prompt and check the editor holds it, wait for the page to show the message left, and the
errors both raise. Each provider's composer passes its name, its Send control's name and its
rate-limit reading; the view is its page (`insert_text`, `composer`, `turns`, `scoped_text`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.providers.send import SendBaseline, send_accepted, squash
from oraculum.providers.turns import TurnsReading

__all__ = ["fill_prompt", "rate_limit_error", "upload_failed", "wait_accepted"]

POLL_S = 0.25
EDITOR_WAIT_S = 15.0


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


async def fill_prompt(view: Any, prompt: str, label: str) -> None:
    """Replace whatever the composer holds with exactly ``prompt``."""
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
    view: Any,
    before: SendBaseline,
    *,
    timeout_s: float,
    label: str,
    send_label: str,
    rate_limited: Callable[[str], str | None],
) -> TurnsReading:
    """The reading that shows the message left (`providers.send`), or why it did not."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        reading: TurnsReading = await view.turns()
        if send_accepted(before, reading):
            return reading
        limited = rate_limited(await view.scoped_text())
        if limited:
            raise rate_limit_error(label, "sending", limited)
        await asyncio.sleep(POLL_S)
    raise OracleError(
        ErrorCode.SEND_NOT_ACCEPTED,
        f"{label} did not accept the message after {send_label} was clicked. The prompt may or "
        f"may not have reached {label}: resubmitting could send it twice — check the "
        "conversation first.",
        suggested_next_step=f"Open {label} and look for the message before resubmitting.",
    )
