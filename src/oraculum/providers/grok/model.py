"""Select Grok Heavy in "Model select" and verify the composer shows it (facts §5)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from playwright.async_api import Locator

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.providers.grok import vocabulary as vocab
from oraculum.providers.grok.page import GrokPage
from oraculum.providers.page import button_names, menu_entries

MENU_WAIT_S = 3.0
VERIFY_WAIT_S = 3.0
POLL_S = 0.1

DRIFT_NEXT_STEP = "Grok's model menu may have changed: see the job's diagnostics."
SIGNED_OUT_STEP = "Run `oraculum auth grok` to sign the Grok seed profile in, then resubmit."


def observed_heavy(shows: str) -> dict[str, Any]:
    """The `observedSelection` of a verified Heavy selection."""
    return {
        "picker": "model_select",
        "shows": shows,
        "mode": "heavy",
        "family": "grok",
        "effort": "heavy",
        "verification": "strong",
    }


def shows_heavy(label: str) -> bool:
    return vocab.HEAVY_ITEM_PATTERN.match(label.strip()) is not None


async def select_heavy(grok: GrokPage, log: Callable[[str], None]) -> dict[str, Any]:
    """Heavy, selected and verified by the "Model select" button's label; else an error that
    says whether a signed-out session is the reason."""
    opener = grok.model_select()
    if not await grok.present(opener, vocab.MODEL_SELECT_LABEL):
        buttons = await button_names(grok.composer_region())
        shown = ", ".join(repr(name) for name in buttons) or "no named button"
        raise OracleError(
            ErrorCode.MODEL_PICKER_NOT_FOUND,
            f'Could not find Grok\'s "{vocab.MODEL_SELECT_LABEL}" button; the query bar shows '
            f"{shown}.",
            retryable=True,
            details={"wanted": f'button "{vocab.MODEL_SELECT_LABEL}"', "observed": buttons},
            suggested_next_step=DRIFT_NEXT_STEP,
        )
    # Always through the menu, even when the button already says Heavy: a signed-out page can
    # show the account's last model while refusing it, and only the item tells.
    await grok.guarded_click(opener.first, vocab.MODEL_SELECT_LABEL)
    item = await _enabled_heavy_item(grok)
    if item is None:
        entries = await menu_entries(grok.page, vocab.MENU_SELECTORS)
        await grok.close_menu(grok.model_select())
        raise await _unavailable(
            grok, "Grok's model menu offers no enabled Heavy item", ", ".join(entries)
        )
    await item.click()
    current = ""
    deadline = time.monotonic() + VERIFY_WAIT_S
    while time.monotonic() < deadline:
        current = await grok.model_select_text()
        if shows_heavy(current):
            await grok.close_menu(grok.model_select())
            log(f"model select shows {current!r}")
            return observed_heavy(current.strip())
        await asyncio.sleep(POLL_S)
    await grok.close_menu(grok.model_select())
    raise await _unavailable(
        grok, "Could not verify Grok Heavy selection after model configuration", current.strip()
    )


async def _enabled_heavy_item(grok: GrokPage) -> Locator | None:
    """The first enabled item whose name starts with Heavy, once the menu has rendered."""
    deadline = time.monotonic() + MENU_WAIT_S
    while time.monotonic() < deadline:
        seen_any = False
        for role in vocab.MODEL_ITEM_ROLES:
            items = grok.heavy_items(role)
            for index in range(await items.count()):
                seen_any = True
                item = items.nth(index)
                if await item.get_attribute("aria-disabled") != "true" and await item.is_enabled():
                    return item
        if seen_any:
            return None  # listed, but disabled: no polling changes that
        await asyncio.sleep(POLL_S)
    return None


async def _unavailable(grok: GrokPage, message: str, observed: str) -> OracleError:
    if await grok.sign_in_controls().count() > 0:
        return OracleError(
            ErrorCode.AUTH_LOGIN_REQUIRED,
            "Grok Heavy needs a signed-in Grok session; the page offers Sign in.",
            suggested_next_step=SIGNED_OUT_STEP,
        )
    return OracleError(
        ErrorCode.MODEL_SELECTION_UNVERIFIED,
        f"{message}: wanted {vocab.HEAVY!r}, the page shows {observed or 'nothing'!r}.",
        retryable=True,
        details={"wanted": vocab.HEAVY, "observed": observed},
        suggested_next_step=DRIFT_NEXT_STEP,
    )
