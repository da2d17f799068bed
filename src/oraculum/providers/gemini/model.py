"""Choose the job's Gemini mode in the mode picker and verify the opener names it (facts §1.4).

The opener's accessible name says the current mode ("Open mode picker, currently Pro"); an
item is found by its `.label` text, never by its localized `data-test-id`. Both are localized:
a mode is matched by its name in any language the vocabulary knows.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from playwright.async_api import Locator

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.providers.gemini import vocabulary as vocab
from oraculum.providers.gemini.page import GeminiPage

MENU_WAIT_S = 3.0
VERIFY_WAIT_S = 3.0
POLL_S = 0.1

DRIFT_NEXT_STEP = "Gemini's mode picker may have changed: see the job's diagnostics."
SIGNED_OUT_STEP = "Run `oraculum auth gemini` to sign the Gemini seed profile in, then resubmit."


def current_mode(opener_label: str) -> str:
    """The mode an opener's name says is current ("" when it names none)."""
    match = vocab.CURRENT_MODE.search(opener_label)
    return match.group(1).strip() if match else ""


def observed_mode(mode: str, shows: str) -> dict[str, Any]:
    """The `observedSelection` of a verified mode."""
    return {
        "picker": "mode_picker",
        "shows": shows,
        "mode": mode,
        "family": "gemini",
        "effort": mode,
        "verification": "strong",
    }


async def select_mode(gemini: GeminiPage, mode: str, log: Callable[[str], None]) -> dict[str, Any]:
    """``mode`` (a registry id), chosen and verified by the opener's name; else an error that
    says whether a signed-out session or an account without the mode is the reason."""
    names = vocab.mode_names(mode)  # every language's name for it; English first
    wanted = names[0]
    opener = gemini.mode_button()
    if not await gemini.present(opener, "the mode picker"):
        raise OracleError(
            ErrorCode.MODEL_PICKER_NOT_FOUND,
            "Could not find Gemini's mode picker.",
            retryable=True,
            details={"wanted": vocab.MODE_BUTTON_SELECTOR, "observed": []},
            suggested_next_step=DRIFT_NEXT_STEP,
        )
    # Always through the menu: only an item says whether the account may use the mode.
    await gemini.guarded_click(opener.first, "the mode picker")
    item, offered = await _item(gemini, names)
    if item is None:
        await gemini.close_menu(gemini.mode_button())
        raise await _unavailable(gemini, wanted, ", ".join(offered))
    await item.click()
    shows = ""
    deadline = time.monotonic() + VERIFY_WAIT_S
    while time.monotonic() < deadline:
        shows = current_mode(await gemini.mode_label())
        if shows in names:
            await gemini.close_menu(gemini.mode_button())
            log(f"mode picker shows {shows!r}")
            return observed_mode(mode, shows)
        await asyncio.sleep(POLL_S)
    await gemini.close_menu(gemini.mode_button())
    raise OracleError(
        ErrorCode.MODEL_SELECTION_UNVERIFIED,
        f"Could not verify Gemini's mode: wanted {wanted!r}, the picker shows "
        f"{shows or 'nothing'!r}.",
        retryable=True,
        details={"wanted": wanted, "observed": shows},
        suggested_next_step=DRIFT_NEXT_STEP,
    )


async def _item(gemini: GeminiPage, names: tuple[str, ...]) -> tuple[Locator | None, list[str]]:
    """The enabled item labelled with one of ``names`` once the menu has rendered, and every
    label seen."""
    deadline = time.monotonic() + MENU_WAIT_S
    labels: list[str] = []
    while time.monotonic() < deadline:
        items = gemini.mode_items()
        labels = []
        for index in range(await items.count()):
            item = items.nth(index)
            label_el = item.locator(vocab.MODE_ITEM_LABEL_SELECTOR)
            named = label_el.first if await label_el.count() else item
            label = (await named.inner_text()).strip()
            labels.append(label)
            if label in names and await item.get_attribute("aria-disabled") != "true":
                return item, labels
        if labels:
            return None, labels  # listed without it, or disabled: polling changes neither
        await asyncio.sleep(POLL_S)
    return None, labels


async def _unavailable(gemini: GeminiPage, wanted: str, offered: str) -> OracleError:
    if await gemini.sign_in_controls().count() > 0:
        return OracleError(
            ErrorCode.AUTH_LOGIN_REQUIRED,
            f"Gemini's {wanted} mode needs a signed-in Google account; the page offers Sign in.",
            suggested_next_step=SIGNED_OUT_STEP,
        )
    return OracleError(
        ErrorCode.MODEL_SELECTION_UNVERIFIED,
        f"Gemini's mode picker offers no enabled {wanted!r} (it shows {offered or 'nothing'!r}); "
        "the account may not have it.",
        retryable=True,
        details={"wanted": wanted, "observed": offered},
        suggested_next_step=DRIFT_NEXT_STEP,
    )
