"""Model configuration on every picker generation ChatGPT has shipped, with verification.

Generations: the legacy configuration dialog, removable composer chips, the compact
"Intelligence" menu, and the current "Power" slider. Which one is present is found by opening
the composer's model opener and looking at what opened. Modals are only ever dismissed through
their close controls.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from functools import partial
from typing import TypeVar

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.providers.chatgpt import plans
from oraculum.providers.chatgpt import vocabulary as vocab
from oraculum.providers.chatgpt.labels import ambiguous, base_name, match_label
from oraculum.providers.chatgpt.labels import names_label as tier_matches
from oraculum.providers.chatgpt.page import ChatGPTPage
from oraculum.providers.locales import alternatives, exact_any, prefix_any
from oraculum.providers.page import button_names

# A fixed pause, for the few steps whose effect has no single thing to watch for.
UI_SETTLE_S = 0.3
# A step that does have one polls for it, up to this long: quick on a quick page, patient on a
# slow one (longer than the fixed pause it replaced).
EFFECT_WAIT_S = 1.5
EFFECT_POLL_S = 0.05
# How long one way of closing the picker gets before the next is tried.
CLOSE_WAIT_S = 0.3
# The composer may still be hydrating when configuration starts.
OPENER_WAIT_S = 10.0
OPENER_POLL_S = 0.1
# Presses beyond the slider's stop count, for a press that a re-render swallowed.
EXTRA_STEPS = 2

T = TypeVar("T")

_VERSION = rf"(?:{vocab.MODEL_FAMILY_PREFIX})?"
_OPENERS = alternatives((*vocab.MODEL_OPENER_LABELS, *vocab.TIER_NAMES, *vocab.POWER_OPENER_OPEN))
OPENER_NAME = re.compile(rf"^{_VERSION}(?:{_OPENERS})$")
# A family row, with or without a family prefix and a check mark.
FAMILY_NAME = re.compile(
    rf"^{_VERSION}(?:{alternatives(vocab.FAMILY_NAMES)})"
    rf"(?:\s*[{vocab.CHECK_MARKS}])?$"
)


@dataclass(frozen=True)
class Wanted:
    family: str
    effort: str | None
    auto_switch: bool

    @classmethod
    def from_selection(cls, selection: dict) -> Wanted:
        return cls(
            family=selection["modelFamily"],
            effort=selection.get("effort"),
            auto_switch=bool(selection.get("autoSwitchToThinking")),
        )


@dataclass(frozen=True)
class ObservedSelection:
    """What the composer shows after configuration, and how firmly it was verified."""

    picker: str
    shows: str
    family: str | None
    effort: str | None
    auto_switch: bool | None
    verification: str  # strong | weak
    drift: str | None = None  # how the page named what was chosen, when only a prefix matched

    def to_json_dict(self) -> dict:
        names = {"auto_switch": "autoSwitchToThinking"}
        return {names.get(k, k): v for k, v in asdict(self).items() if v is not None}


def choice(label: str) -> re.Pattern[str]:
    """A menu row named ``label``, with or without the check mark of a selected row."""
    names = alternatives(vocab.LOCALES.spellings(label) or (label,))
    return re.compile(rf"^(?:{names})(?:\s*[{vocab.CHECK_MARKS}])?$")


DRIFT_NEXT_STEP = (
    "ChatGPT's model picker may have changed: run `oraculum doctor --live` and see the job "
    "diagnostics."
)


def _fail(message: str, **details: object) -> OracleError:
    return OracleError(
        ErrorCode.MODEL_CONFIGURATION_FAILED,
        message,
        retryable=True,
        details=details or None,
        suggested_next_step=DRIFT_NEXT_STEP,
    )


# How the obstacle layer's records name the picker's opener.
PICKER_WANTED = "the model picker"
OPENER_WANTED = "a model picker button named " + ", ".join(
    repr(n) for n in (*vocab.MODEL_OPENER_LABELS, *vocab.POWER_STOPS)
)


def picker_not_found(observed: list[str]) -> OracleError:
    shown = ", ".join(repr(name) for name in observed) or "no named button"
    return OracleError(
        ErrorCode.MODEL_PICKER_NOT_FOUND,
        f"Could not find the model picker in the composer: wanted {OPENER_WANTED} (a family "
        f"prefix allowed); the composer shows {shown}.",
        retryable=True,
        details={"wanted": OPENER_WANTED, "observed": observed},
        suggested_next_step=DRIFT_NEXT_STEP,
    )


def selection_unverified(wanted: str, observed: str) -> OracleError:
    """The picker was found and set, but the composer does not read back what was asked."""
    return OracleError(
        ErrorCode.MODEL_SELECTION_UNVERIFIED,
        f"The model picker was set, but the composer shows {observed!r}, not {wanted!r}.",
        retryable=True,
        details={"wanted": wanted, "observed": observed},
        suggested_next_step=DRIFT_NEXT_STEP,
    )


def stop_not_found(wanted: str, stops: list[str], count: int) -> OracleError:
    """The Power slider has no stop named ``wanted`` among the ones it showed."""
    return OracleError(
        ErrorCode.MODEL_SELECTION_UNVERIFIED,
        f"The Power slider has no {wanted!r} stop: it showed {', '.join(stops)} "
        f"({count} stops). Nothing was sent.",
        retryable=True,
        details={"wanted": wanted, "observed": stops, "stops": count},
        suggested_next_step=DRIFT_NEXT_STEP,
    )


def picker_stuck_open() -> OracleError:
    return OracleError(
        ErrorCode.MODEL_PICKER_STUCK_OPEN,
        "The model picker stayed open after Escape and a click on its opener; nothing was sent.",
        retryable=True,
        suggested_next_step=DRIFT_NEXT_STEP,
    )


def parse_power(description: str) -> tuple[str, int, int] | None:
    """("Extra High", 4, 5) from "Extra High, 4 of 5. Use Left and Right arrow keys…"."""
    found = vocab.POWER_DESCRIPTION.match(description)
    if not found:
        return None
    index, count = int(found["index"]), int(found["count"])
    if not 1 <= index <= count:
        return None
    return found["label"].strip(), index, count


def power_direction(label: str, index: int, count: int, target: str) -> int:
    """Which way to step from stop ``label`` (``index`` of ``count``) towards ``target``: by
    the known order of stops when the current one is known, else by where the target sits in
    that order against where the slider is (an inserted stop has no place of its own)."""
    order = vocab.POWER_STOPS
    goal = order.index(target)
    here = base_name(label)
    if here in order:
        return 1 if goal > order.index(here) else -1
    return 1 if goal / (len(order) - 1) > (index - 1) / max(count - 1, 1) else -1


def passed_stop(label: str, target: str, direction: int) -> bool:
    """Whether the slider, stepping in ``direction``, reached a known stop beyond ``target``
    (so the target is not on this slider)."""
    here = base_name(label)
    if here not in vocab.POWER_STOPS:
        return False
    beyond = vocab.POWER_STOPS.index(here) - vocab.POWER_STOPS.index(target)
    return beyond * direction > 0


def chip_label(wanted: Wanted) -> str | None:
    """The removable chip the composer shows for ``wanted`` (none for Instant)."""
    effort = vocab.EFFORT_LABELS[wanted.effort or "standard"]
    family = vocab.FAMILY_LABELS[wanted.family]
    if wanted.family == "instant":
        return None
    return family if (wanted.effort or "standard") == "standard" else f"{effort} {family}"


class PickerSession:
    """What every picker generation needs: the opener (whatever it is called while open),
    closing confirmed by its effect, modals closed through their close control, read-back."""

    def __init__(self, chat: ChatGPTPage, log: Callable[[str], None]) -> None:
        self.chat = chat
        self.page = chat.page
        self.log = log
        self.drifts: list[str] = []  # how the page named what was chosen, when it drifted

    async def settle(self) -> None:
        await asyncio.sleep(UI_SETTLE_S)

    async def until(self, done: Callable[[], Awaitable[T]], within: float = EFFECT_WAIT_S) -> T:
        """Poll ``done`` until it gives something true or ``within`` passes; its last answer.
        A step confirms its effect this way rather than sleeping a fixed time and looking once."""
        deadline = time.monotonic() + within
        while not (answer := await done()) and time.monotonic() < deadline:
            await asyncio.sleep(EFFECT_POLL_S)
        return answer

    async def checked(self, control: Locator) -> bool:
        return await control.get_attribute("aria-checked") == "true"

    async def dismiss_modals(self) -> None:
        """Clear what covers the composer by the obstacle layer's safe policy."""
        await self.chat.obstacles.clear(None, PICKER_WANTED)

    async def find_opener(self) -> Locator | None:
        """The model picker's opener: a button named like one, or (while its menu is open and
        its name has drifted to something else) the composer's expanded popup button."""
        region = self.chat.composer_region()
        for candidates in (
            region.get_by_role("button", name=OPENER_NAME),
            region.locator(vocab.EXPANDED_POPUP_OPENER_SELECTOR),
            self.page.get_by_role("button", name=OPENER_NAME),
        ):
            if await candidates.count():
                return candidates.first
        return None

    async def opener(self) -> Locator:
        deadline = time.monotonic() + OPENER_WAIT_S
        while True:
            found = await self.find_opener()
            if found is not None:
                return found
            await self.dismiss_modals()  # a modal that aria-hides the page hides the opener too
            if time.monotonic() >= deadline:
                raise picker_not_found(await button_names(self.chat.composer_region()))
            await asyncio.sleep(OPENER_POLL_S)

    async def entry(self, rows: Locator, wanted: str) -> Locator:
        """The one row of ``rows`` that names ``wanted`` (exactly, or without its family
        prefix when it is the only such row); a drift is logged and kept for the read-back."""
        names = [
            (await rows.nth(i).get_attribute("aria-label") or await rows.nth(i).inner_text())
            for i in range(await rows.count())
        ]
        match = match_label(names, wanted)
        if match.ambiguous:
            raise ambiguous(match, names)
        if match.index is None:
            raise _fail(
                f"No model entry names {wanted!r}; the picker shows "
                f"{', '.join(repr(n.strip()) for n in names) or 'no entries'}.",
                wanted=wanted,
                observed=[n.strip() for n in names],
            )
        self.note_drift(match.drift)
        return rows.nth(match.index)

    def note_drift(self, drift: str | None) -> None:
        if drift and drift not in self.drifts:
            self.log(f"model name drift: {drift}")
            self.drifts.append(drift)

    async def picker_closed(self, menu: Locator | None) -> bool:
        """Closed by its effect: the opener says `aria-expanded="false"` (it owns that
        contract, so a lingering node does not count), or without that word, no menu left."""
        opener = await self.find_opener()
        expanded = await opener.get_attribute("aria-expanded") if opener is not None else None
        if expanded is not None:
            return expanded != "true"
        return menu is None or await menu.count() == 0 or not await menu.first.is_visible()

    async def close_picker(self, menu: Locator | None) -> None:
        """Close the picker and confirm it closed: Escape, then a click on the opener (some
        menus ignore Escape). Nothing continues while it is open."""
        for step in ("escape", "opener", "escape", "opener"):
            if await self.picker_closed(menu):
                return
            if step == "escape":
                await self.page.keyboard.press("Escape")
            else:
                opener = await self.find_opener()
                if opener is not None:
                    await opener.click()
            await self.until(lambda: self.picker_closed(menu), CLOSE_WAIT_S)
        if not await self.picker_closed(menu):
            raise picker_stuck_open()

    async def set_auto_switch(self, scope: Locator | Page, wanted: bool) -> bool | None:
        """Put the "Auto-switch to Thinking" switch in ``scope`` in the wanted state and read it
        back; None when there is no such switch."""
        toggle = scope.get_by_role("switch", name=prefix_any(vocab.AUTO_SWITCH_PREFIXES))
        if await toggle.count() == 0:
            return None
        if await self.checked(toggle.first) != wanted:
            await toggle.first.click()
            await self.until(partial(_checked_is, self, toggle.first, wanted))
        seen = await self.checked(toggle.first)
        if seen != wanted:
            raise _fail("Auto-switch to Thinking did not take the requested state.")
        return seen

    async def reopen_if_closed(self, menu: Locator) -> None:
        """A menu may close when a choice re-renders it; open it again to read the result."""
        if await menu.count() == 0:
            await self.chat.guarded_click(await self.opener(), PICKER_WANTED)
            await self.until(lambda: _present(menu))

    async def read_back(self, wanted: str) -> str:
        """The closed opener's text, which must name ``wanted`` (else the selection is
        unverified: found and set, but not what the composer shows)."""

        async def shown() -> str:
            return (await (await self.opener()).inner_text()).strip()

        await self.until(lambda: _matches(shown(), wanted))
        shows = await shown()
        if not tier_matches(shows, wanted):
            raise selection_unverified(wanted, shows)
        self.note_drift(match_label([shows], wanted).drift)
        return shows

    @property
    def drift(self) -> str | None:
        return "; ".join(self.drifts) or None


class PowerPicker(PickerSession):
    """The current "Power" slider (September 2026): five stops, Pro's effort as radios."""

    async def configure(self, menu: Locator, wanted: Wanted) -> ObservedSelection:
        target = vocab.power_stop_for(wanted.family, wanted.effort)
        power = menu.get_by_role("menuitem", name=exact_any(vocab.POWER_ITEMS)).first
        await self._step_power(power, target)
        effort_seen = None
        if wanted.family == "pro" and await power.count():
            effort_seen = await self._pick_pro_effort(menu, wanted.effort or "standard")
        await self.close_picker(menu)
        shows = await self.read_back(target)
        strong = wanted.family != "pro" or effort_seen == (wanted.effort or "standard")
        return ObservedSelection(
            "power",
            shows,
            wanted.family,
            effort_seen or wanted.effort,
            None,
            "strong" if strong else "weak",
            self.drift,
        )

    async def _step_power(self, power: Locator, target: str) -> None:
        """Step the slider until the stop it reads back is named ``target`` — by the stop's
        label, never its index (a page may insert or drop stops): bounded presses, re-read after
        each, whatever its pixel size. Stepping to Instant may close the whole picker; the
        closed pill is then checked by the caller."""
        reading = await self._power_reading(power)
        if reading is None:
            raise _fail("Could not read the Power slider position.")
        label, index, count = reading
        seen = {index: label}
        direction = power_direction(label, index, count, target)
        stalled = 0
        for _ in range(count + EXTRA_STEPS):
            if tier_matches(label, target):
                self.note_drift(match_label([label], target).drift)
                return
            if passed_stop(label, target, direction) or index == (count if direction > 0 else 1):
                raise stop_not_found(target, [seen[i] for i in sorted(seen)], count)
            await power.focus()
            await self.page.keyboard.press("ArrowRight" if direction > 0 else "ArrowLeft")
            await self.until(partial(self._moved_from, power, index))
            if not await power.count():
                return  # the picker closed itself
            moved = await self._power_reading(power)
            if moved is None:
                raise _fail("Could not read the Power slider position after a step.")
            stalled = stalled + 1 if moved[1] == index else 0
            if stalled >= 2:
                raise selection_unverified(target, moved[0])
            label, index, count = moved
            seen[index] = label
        if not tier_matches(label, target):
            raise selection_unverified(target, label)

    async def _power_reading(self, power: Locator) -> tuple[str, int, int] | None:
        return parse_power(await self.chat.described_by(power))

    async def _moved_from(self, power: Locator, index: int) -> bool:
        """The slider left stop ``index`` (or the picker closed itself)."""
        if not await power.count():
            return True
        reading = await self._power_reading(power)
        return reading is not None and reading[1] != index

    async def _pick_pro_effort(self, menu: Locator, effort: str) -> str | None:
        label = vocab.EFFORT_LABELS[effort]
        radio = menu.get_by_role("menuitemradio", name=choice(label))
        if await radio.count() == 0:
            return None
        if not await self.checked(radio.first):
            await radio.first.click()
            # A choice may re-render the menu closed: then there is nothing more to watch.
            await self.until(lambda: _checked_or_gone(self, radio, menu))
            await self.reopen_if_closed(menu)
        if await radio.count() == 0:
            return None
        return effort if await self.checked(radio.first) else None


class IntelligencePicker(PickerSession):
    """The compact "Intelligence" tier menu (2026-06/07)."""

    async def configure(self, wanted: Wanted) -> ObservedSelection:
        tier = vocab.compact_tier_for(wanted.family, wanted.effort)
        advanced = self.page.get_by_role("menuitem", name=exact_any(vocab.SHOW_ADVANCED))
        rows = self.page.get_by_role("menuitemradio")
        if await advanced.count():
            await advanced.first.click()
            await self.until(lambda: _present(rows))
        effort_seen = None
        if wanted.family == "pro" and wanted.effort:
            effort_name = f"Pro {vocab.EFFORT_LABELS[wanted.effort]}"
            more = self.page.get_by_role("menuitem", name=exact_any(vocab.PRO_EFFORT_OPTIONS))
            row = self.page.get_by_role("menuitemradio", name=choice(effort_name))
            if await more.count():
                await more.first.click(force=True)  # a tiny trailing icon, often covered
                await self.until(lambda: _present(row))
            if await row.count():
                await row.first.click()
                effort_seen = wanted.effort
        if effort_seen is None:
            try:
                row = await self.entry(rows, tier)
            except OracleError:
                await self.close_picker(self._intelligence_menu())
                raise
            await row.click()
        # A choice usually closes the menu itself; give it the chance before closing it.
        await self.until(lambda: self.picker_closed(self._intelligence_menu()), CLOSE_WAIT_S)
        await self.close_picker(self._intelligence_menu())
        shows = await self.read_back(tier)
        strong = wanted.family != "pro" or effort_seen is not None or wanted.effort is None
        return ObservedSelection(
            "intelligence",
            shows,
            wanted.family,
            effort_seen or wanted.effort,
            None,
            "strong" if strong else "weak",
            self.drift,
        )

    def _intelligence_menu(self) -> Locator:
        heading = self.page.get_by_role("heading", name=exact_any(vocab.INTELLIGENCE_HEADINGS))
        return self.page.get_by_role("menu").filter(has=heading)


class LegacyPicker(PickerSession):
    """The legacy configuration dialog: family radios, an effort combobox, auto-switch."""

    @staticmethod
    def dialog(page: Page) -> Locator:
        return page.get_by_role("dialog").filter(has=page.get_by_role("radio"))

    async def configure(self, wanted: Wanted) -> ObservedSelection:
        dialog = self.dialog(self.page)
        if await dialog.count() == 0:
            raise _fail("Could not open model configuration UI.")
        dialog = dialog.first
        family_name = vocab.FAMILY_LABELS[wanted.family]
        radio = dialog.get_by_role(
            "radio", name=re.compile(rf"^{_VERSION}{family_name}(?:[ ,].*)?$")
        )
        if await radio.count() == 0:
            raise _fail(f"Could not find model family control for {wanted.family}")
        if not await self.checked(radio.first):
            await radio.first.click()
            await self.until(lambda: self.checked(radio.first))
        if not await self.checked(radio.first):
            raise _fail(f"Requested model family did not remain selected: {wanted.family}")
        effort_seen = None
        auto_seen = None
        if wanted.family == "instant":
            auto_seen = await self.set_auto_switch(dialog, wanted.auto_switch)
            if auto_seen is None:
                raise _fail("Could not find Auto-switch to Thinking control")
        else:
            effort_seen = await self._set_effort(dialog, wanted)
        close = dialog.get_by_role("button", name=exact_any(vocab.CLOSE_LABELS))
        if await close.count():
            await close.first.click()
            await self.until(lambda: _gone(dialog))
        await self.close_picker(dialog)
        shows = (await (await self.opener()).inner_text()).strip()
        return ObservedSelection(
            "legacy", shows, wanted.family, effort_seen, auto_seen, "strong", self.drift
        )

    async def _set_effort(self, dialog: Locator, wanted: Wanted) -> str:
        """The family's effort combobox set to the wanted effort and read back."""
        pro = wanted.family == "pro"
        names = vocab.PRO_EFFORT_COMBOBOXES if pro else vocab.THINKING_EFFORT_COMBOBOXES
        effort_label = vocab.EFFORT_LABELS[wanted.effort or "standard"]
        combo = dialog.get_by_role("combobox", name=exact_any(names))
        if await combo.count() == 0:
            raise _fail(f"Could not open effort dropdown for requested effort: {effort_label}")

        async def shows_wanted() -> bool:
            return base_name(await combo.first.inner_text()) == effort_label

        if not await shows_wanted():
            await combo.first.click()
            option = self.page.get_by_role("option", name=choice(effort_label))
            if not await self.until(lambda: _present(option)):
                raise _fail(f"Could not find labeled entry: {effort_label}")
            await option.first.click()
            await self.until(shows_wanted)
        if not await shows_wanted():
            raise _fail(f"Requested effort did not remain selected: {effort_label}")
        return wanted.effort or "standard"


class ChipsPicker(PickerSession):
    """Removable composer chips: family and effort rows, the chip read back."""

    async def configure(self, wanted: Wanted) -> ObservedSelection:
        family_name = vocab.FAMILY_LABELS[wanted.family]
        row = await self.entry(self.page.get_by_role("menuitemradio"), family_name)
        if not await self.checked(row):
            await row.click()
            await self.until(lambda: _checked_or_gone(self, row, row))
        auto_seen = None
        if wanted.family == "instant":
            auto_seen = await self.set_auto_switch(self.page, wanted.auto_switch)
        else:
            effort_label = vocab.EFFORT_LABELS[wanted.effort or "standard"]
            effort = self.page.get_by_role("menuitemradio", name=choice(effort_label))
            await self.reopen_if_closed(row)
            if await effort.count() == 0:
                raise _fail(f"Could not find labeled entry: {wanted.effort}")
            if not await self.checked(effort.first):
                await effort.first.click()
                await self.until(lambda: _checked_or_gone(self, effort, effort))
        family_rows = self.page.get_by_role("menuitemradio", name=FAMILY_NAME)
        await self.close_picker(self.page.get_by_role("menu").filter(has=family_rows))
        expected = chip_label(wanted)
        await self.until(partial(self._chips_show, expected))
        shown = await self._chips()
        if expected is None and shown:
            raise _fail(f"Requested Instant, but the composer still shows {shown[0]!r}.")
        if expected is not None:
            chip = match_label(shown, expected)
            if chip.index is None:
                raise selection_unverified(expected, ", ".join(shown) or "no model chip")
            self.note_drift(chip.drift)
        strong = wanted.family != "instant" or auto_seen is not None
        return ObservedSelection(
            "chips",
            expected or vocab.FAMILY_LABELS["instant"],
            wanted.family,
            wanted.effort if wanted.family != "instant" else None,
            auto_seen,
            "strong" if strong else "weak",
            self.drift,
        )

    async def _chips(self) -> list[str]:
        """The model chips the composer shows."""
        chips = self.chat.composer_region().get_by_role(
            "button", name=re.compile(re.escape(vocab.CHIP_REMOVE_SUFFIX) + "$")
        )
        return [
            ((await chips.nth(i).get_attribute("aria-label")) or "").removesuffix(
                vocab.CHIP_REMOVE_SUFFIX
            )
            for i in range(await chips.count())
        ]

    async def _chips_show(self, expected: str | None) -> bool:
        shown = await self._chips()
        return not shown if expected is None else match_label(shown, expected).index is not None


class Configurator(PickerSession):
    """Opens the composer's model picker, finds which generation opened, and hands over to
    that generation's strategy."""

    async def configure(self, wanted: Wanted, preset: str | None = None) -> ObservedSelection:
        """Configure ``wanted``; when a step fails while a dialog has come over the page (an
        aria-modal one hides the open menu from the accessibility tree mid-step), the dialog
        is cleared by the obstacle layer's policy and the whole choice made once more from a
        closed picker, as a person would. The read-back still decides what was chosen."""
        try:
            return await self._configure_once(wanted, preset)
        except (OracleError, PlaywrightError) as error:
            if getattr(error, "code", None) == ErrorCode.MODEL_NOT_IN_PLAN:
                raise
            if not await self.chat.obstacles.read(None):
                raise
        self.log("a dialog came over the model picker mid-step; clearing it, choosing again")
        await self.dismiss_modals()
        await self.close_picker(self.page.get_by_role("menu"))
        return await self._configure_once(wanted, preset)

    async def _configure_once(self, wanted: Wanted, preset: str | None) -> ObservedSelection:
        await self.dismiss_modals()
        opener = await self.opener()
        await self.chat.guarded_click(opener, PICKER_WANTED)
        generation = await self.until(self._generation)
        await self._refuse_locked(wanted, preset)
        if generation == "power":
            power_menu = self.page.get_by_role("menu", name=exact_any(vocab.POWER_MENUS))
            return await PowerPicker(self.chat, self.log).configure(power_menu, wanted)
        if generation == "intelligence":
            return await IntelligencePicker(self.chat, self.log).configure(wanted)
        if generation == "legacy":
            await self._configure_item().first.click()
            await self.until(lambda: _present(LegacyPicker.dialog(self.page)))
            return await LegacyPicker(self.chat, self.log).configure(wanted)
        if generation == "chips":
            return await ChipsPicker(self.chat, self.log).configure(wanted)
        await self.close_picker(self.page.get_by_role("menu"))
        raise _fail("Could not open model configuration UI.")

    async def _refuse_locked(self, wanted: Wanted, preset: str | None) -> None:
        """A model the account's plan lacks is refused before the picker is touched: a locked
        entry never takes, and stepping at it would only look like drift."""
        locked = await plans.locked_entries(self.chat)
        refused = plans.refusal(wanted.family, wanted.effort, preset or wanted.family, locked)
        if refused is not None:
            await self.close_picker(self.page.get_by_role("menu"))
            raise refused

    async def _generation(self) -> str | None:
        """Which picker generation the opener opened (None: nothing recognisable yet)."""
        power_menu = self.page.get_by_role("menu", name=exact_any(vocab.POWER_MENUS))
        if (
            await power_menu.count()
            and await power_menu.get_by_role("menuitem", name=exact_any(vocab.POWER_ITEMS)).count()
        ):
            return "power"
        heading = self.page.get_by_role("heading", name=exact_any(vocab.INTELLIGENCE_HEADINGS))
        if await heading.count():
            return "intelligence"
        if await self._configure_item().count():
            return "legacy"
        family_rows = self.page.get_by_role("menuitemradio", name=FAMILY_NAME)
        if await family_rows.count():
            return "chips"
        return None

    def _configure_item(self) -> Locator:
        return self.page.get_by_role("menuitem", name=exact_any(vocab.CONFIGURE_MENUITEMS))


# Effects a step waits for ---------------------------------------------------------------------


async def _present(locator: Locator) -> bool:
    return await locator.count() > 0


async def _gone(locator: Locator) -> bool:
    return await locator.count() == 0


async def _checked_is(session: PickerSession, control: Locator, wanted: bool) -> bool:
    return await session.checked(control) == wanted


async def _matches(shown: Awaitable[str], tier: str) -> bool:
    return tier_matches(await shown, tier)


async def _checked_or_gone(session: PickerSession, control: Locator, menu: Locator) -> bool:
    """A choice took (its control reads checked), or re-rendered its menu away."""
    return await menu.count() == 0 or await session.checked(control.first)
