"""The read-only live probe behind `oraculum doctor --live`: does the ready ChatGPT page still
show every control the next job needs, under the names the vocabulary gives them?

Nothing is sent, uploaded or chosen. What covers a probed control (a dialog, a banner, a
backdrop) is reported by role and name and cleared as a job clears it (the obstacle layer's
safe policy); a Send control that shows only once the composer holds text is probed by typing,
looking and clearing the composer again, never clicked. The probe opens menus only to look
inside them (the tools menu behind "Add files and more", the model picker, the legacy
configuration dialog, the compact menu's advanced rows) and closes each again, confirmed by
its effect: the opener says `aria-expanded="false"`, or the menu or dialog is gone. A control
the page no longer shows is named in its entry; the probe itself never raises for a page that
drifted.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import ElementHandle, Locator, Page

from oraculum.browser.errors import first_line
from oraculum.core.config import Config
from oraculum.core.errors import OracleError
from oraculum.providers import upload
from oraculum.providers.base import ProbeEntry
from oraculum.providers.chatgpt import plans
from oraculum.providers.chatgpt import vocabulary as vocab
from oraculum.providers.chatgpt.composer import UPLOAD_ROUTE
from oraculum.providers.chatgpt.labels import base_name, unprefixed
from oraculum.providers.chatgpt.page import ChatGPTPage
from oraculum.providers.chatgpt.page_state import allowed_origins
from oraculum.providers.chatgpt.pickers import (
    OPENER_NAME,
    choice,
    parse_power,
    tier_matches,
)
from oraculum.providers.chatgpt.readiness import wait_until_ready
from oraculum.providers.locales import exact_any, prefix_any
from oraculum.providers.page import page_language

SETTLE_S = 0.3
CLICK_TIMEOUT_MS = 5_000
LISTED = 8  # names shown when describing what the page has instead


# What each entry expects, as the vocabulary says it ------------------------------------------


def _quoted(names: tuple[str, ...] | list[str]) -> str:
    return " or ".join(f'"{n}"' for n in names)


EXPECT_COMPOSER = (
    f"textbox {_quoted(vocab.COMPOSER_LABELS)} or the composer form's textbox "
    f"({vocab.COMPOSER_EDITOR_SELECTOR})"
)
EXPECT_REGION = f"{vocab.COMPOSER_REGION_SELECTOR} holding {vocab.COMPOSER_EDITOR_SELECTOR}"
EXPECT_ADD = f"button {_quoted(vocab.ADD_FILES_LABELS)}, enabled"
EXPECT_FILE_INPUT = f"{vocab.FILE_INPUT_SELECTOR} or an upload entry once the menu is open"
EXPECT_OPENER = "button named " + _quoted(
    [*vocab.MODEL_OPENER_LABELS, *vocab.TIER_NAMES]
)  # an optional version number may lead ("6 Pro")
EXPECT_GENERATION = (
    f"power (menu {_quoted(vocab.POWER_MENUS)} with menuitem {_quoted(vocab.POWER_ITEMS)}), "
    f"intelligence (heading {_quoted(vocab.INTELLIGENCE_HEADINGS)}), "
    f"legacy (menuitem {_quoted(vocab.CONFIGURE_MENUITEMS)}) or "
    f"chips (menuitemradio {_quoted(list(vocab.FAMILY_LABELS.values()))})"
)
EXPECT_CLOSED = 'the opener says aria-expanded="false" or the menu is gone'
EXPECT_SEND = (
    f"button {_quoted(vocab.SEND_LABELS)} (disabled, or shown only once text is typed, is fine)"
)
EXPECT_UNOBSTRUCTED = "nothing covers it, or the safe dismissal policy clears what does"
PROBE_TEXT = "oraculum doctor probe (never sent)"
EXPECT_STOP = f"{vocab.STOP_SELECTOR} or button {_quoted(vocab.STOP_LABELS)} while answering"
EXPECT_EFFORT = {
    "power": (
        f"menuitem {_quoted(vocab.POWER_ITEMS)} described as"
        ' "<stop>, <n> of <count>." with a stop in ' + ", ".join(vocab.POWER_STOPS)
    ),
    "intelligence": "menuitemradio rows for " + ", ".join(vocab.POWER_STOPS),
    "legacy": (
        f"combobox {_quoted(vocab.THINKING_EFFORT_COMBOBOXES + vocab.PRO_EFFORT_COMBOBOXES)} "
        f'showing an effort, or switch "{vocab.AUTO_SWITCH_PREFIXES[0]}…" (Instant)'
    ),
    "chips": (
        f"menuitemradio {_quoted(list(vocab.EFFORT_LABELS.values()))}, or switch "
        f'"{vocab.AUTO_SWITCH_PREFIXES[0]}…" (Instant)'
    ),
}


EXPECT_LANGUAGE = (
    f"html lang naming a language oraculum has a table for ({', '.join(vocab.LOCALES.codes)}), "
    "and the labels above spelt as that table spells them"
)

# Pure readings --------------------------------------------------------------------------------


def describe_names(role: str, names: list[str]) -> str:
    """`button "A", button "B", …` for what the page shows instead of an expected control."""
    if not names:
        return f"no {role}"
    shown = ", ".join(f'{role} "{n}"' for n in names[:LISTED])
    return shown + (f" and {len(names) - LISTED} more" if len(names) > LISTED else "")


def power_effort(description: str) -> tuple[str, bool]:
    """What the Power slider's description says, and whether the vocabulary can read it."""
    reading = parse_power(description)
    if reading is None:
        return (description.strip() or "no description"), False
    return description.strip(), base_name(reading[0]) in vocab.POWER_STOPS


def language_finding(lang: str, seen: dict[str, tuple[str, tuple[str, ...]]]) -> tuple[str, bool]:
    """The page's language as the driver picks its table, and every label read on the page
    (entry -> its name and the concepts it may spell) that the table does not spell: matched
    through another language's spelling only, or not at all."""
    code = vocab.LOCALES.resolve(lang)
    shown = f'html lang "{lang}"' if lang else "no html lang"
    if code is None:
        return f"{shown}: no table for it; every known language's labels are tried", False
    table = vocab.LOCALES.tables[code]
    foreign = [
        f'{entry} "{name}"'
        for entry, (name, concepts) in seen.items()
        if not {name, unprefixed(name)} & {s for c in concepts for s in table.get(c, ())}
    ]
    found = f"{code} ({shown})"
    if foreign:
        found += f"; not spelt as {code} spells them: {', '.join(foreign)}"
    return found, True


def missing_tiers(rows: list[str]) -> list[str]:
    """The compact tiers no row of the Intelligence menu names."""
    return [t for t in vocab.POWER_STOPS if not any(tier_matches(r, t) for r in rows)]


async def name_of(element: Locator) -> str:
    """An element's name as a person reads it: its aria-label, else its text."""
    label = await element.get_attribute("aria-label")
    return (label or await element.text_content() or "").strip()


# The probe ------------------------------------------------------------------------------------


class Probe:
    def __init__(self, chat: ChatGPTPage) -> None:
        self.chat = chat
        self.page = chat.page
        self.entries: list[ProbeEntry] = []
        self.reported = 0  # the obstacle layer's dismissals already in an entry
        # The labels read on the page: entry -> (name, the concepts it may spell).
        self.seen: dict[str, tuple[str, tuple[str, ...]]] = {}
        self.locked: list[str] | None = None  # the picker's entries behind an upgrade, once read

    def add(self, entry: str, expected: str, found: str, ok: bool) -> None:
        self.entries.append(ProbeEntry(entry, expected, found, ok))

    async def settle(self) -> None:
        await asyncio.sleep(SETTLE_S)

    async def names(self, locator: Locator) -> list[str]:
        return [await name_of(locator.nth(i)) for i in range(min(await locator.count(), 20))]

    async def unobstructed(self, entry: str, control: Locator | None) -> bool:
        """Clear what covers ``control`` (else the composer) as a job would, one entry per
        obstacle seen: by role, name and buttons, and what cleared it; False when nothing
        safe does (the probe of that control then stops)."""
        try:
            found = await self.chat.obstacles.clear(control, entry)
        except OracleError as error:
            self.add(f"obstacle over {entry}", EXPECT_UNOBSTRUCTED, error.message, False)
            return False
        # Readiness may have cleared one already, before the probe began: reported here too.
        done = self.chat.obstacles.dismissals[self.reported :]
        self.reported += len(done)
        for obstacle in dict.fromkeys([*(d.obstacle for d in done), *found]):
            buttons = describe_names("button", list(obstacle.buttons))
            ways = [d.control for d in done if d.obstacle.key == obstacle.key and d.cleared]
            how = f"cleared by {ways[-1]}" if ways else "gone by itself"
            self.add(
                f"obstacle over {entry}",
                EXPECT_UNOBSTRUCTED,
                f"{obstacle.describe()} ({buttons}): {how}",
                True,
            )
        return True

    async def guarded(self, entry: str, expected: str, step: Callable[[], Awaitable[None]]) -> None:
        """Run one step; a browser error becomes this entry's finding, not the probe's end."""
        try:
            await step()
        except Exception as exc:
            self.add(entry, expected, f"error: {first_line(exc)[:300]}", False)

    # Composer ----------------------------------------------------------------------------------

    async def composer(self) -> None:
        if not await self.unobstructed("composer", None):
            return
        box = self.chat.composer()
        if await box.count():
            editable = await self.chat.evaluate("composer_editable.js")
            name = await name_of(box.first)
            state = "editable" if editable else "not editable"
            self.add("composer", EXPECT_COMPOSER, f'textbox "{name}", {state}', editable)
            if name:
                self.seen["composer"] = (name, ("composer",))
        else:
            others = await self.names(self.page.get_by_role("textbox"))
            self.add("composer", EXPECT_COMPOSER, describe_names("textbox", others), False)
        region = await self.chat.composer_region().count()
        found = "present" if region else "absent"
        self.add("composer region", EXPECT_REGION, found, region > 0)

    async def attach(self) -> None:
        add = self.chat.add_files()
        if not await self.unobstructed("add files", add):
            return
        if not await add.count():
            others = await self.names(self.chat.composer_region().get_by_role("button"))
            self.add("add files", EXPECT_ADD, describe_names("button", others), False)
            return
        enabled = await add.first.is_enabled()
        state = "enabled" if enabled else "disabled"
        name = await name_of(add.first)
        self.seen["add files"] = (name, ("add_files",))
        self.add("add files", EXPECT_ADD, f'button "{name}", {state}', enabled)
        if not enabled:
            return
        opener = await add.first.element_handle()
        await add.first.click(timeout=CLICK_TIMEOUT_MS)
        await self.settle()
        try:
            inputs = await self.page.locator(vocab.FILE_INPUT_SELECTOR).count()
            # A page may create its input only for the upload entry's click (issue 37 §2).
            entries = await upload.visible_entries(self.page, UPLOAD_ROUTE).count()
            found = f"{inputs} file input(s), {entries} upload entr{'y' if entries == 1 else 'ies'}"
            self.add("file input", EXPECT_FILE_INPUT, found, inputs + entries > 0)
        finally:
            await self.close("add files menu", opener, None)

    # Model picker ------------------------------------------------------------------------------

    async def opener(self) -> Locator | None:
        """The model picker's opener, found as the driver finds it (its name pattern)."""
        for scope in (self.chat.composer_region(), self.page):
            candidates = scope.get_by_role("button", name=OPENER_NAME)
            if await candidates.count():
                return candidates.first
        return None

    async def picker(self) -> None:
        if not await self.unobstructed("model picker", await self.opener()):
            return
        opener = await self.opener()
        if opener is None:
            others = await self.names(self.chat.composer_region().get_by_role("button"))
            self.add("model picker", EXPECT_OPENER, describe_names("button", others), False)
            return
        shows = await name_of(opener)
        self.seen["model picker"] = (shows, (*vocab.COMPACT_TIERS, "model_opener"))
        self.add("model picker", EXPECT_OPENER, f'button "{shows}"', True)
        handle = await opener.element_handle()
        container: Locator | None = None
        generation: str | None = None
        try:
            await opener.click(timeout=CLICK_TIMEOUT_MS)
            await self.settle()
            generation, container = await self.generation()
            if generation is None:
                seen = await self.names(self.page.get_by_role("menuitem"))
                seen += await self.names(self.page.get_by_role("menuitemradio"))
                found = "none recognised; the page shows " + describe_names("menuitem", seen)
                self.add("picker generation", EXPECT_GENERATION, found, False)
                return
            self.add("picker generation", EXPECT_GENERATION, generation, True)
            self.locked = await plans.locked_entries(self.chat)
            opened = container
            await self.guarded(
                "effort control", EXPECT_EFFORT[generation], lambda: self.effort(generation, opened)
            )
        finally:
            await self.close("model picker menu", handle, container, dialog=generation == "legacy")

    async def generation(self) -> tuple[str | None, Locator | None]:
        """Which picker opened, told apart as the driver tells them apart."""
        page = self.page
        power_menu = page.get_by_role("menu", name=exact_any(vocab.POWER_MENUS)).filter(
            has=page.get_by_role("menuitem", name=exact_any(vocab.POWER_ITEMS))
        )
        if await power_menu.count():
            return "power", power_menu
        heading = page.get_by_role("heading", name=exact_any(vocab.INTELLIGENCE_HEADINGS))
        if await heading.count():
            return "intelligence", page.get_by_role("menu").filter(has=heading)
        configure = page.get_by_role("menuitem", name=exact_any(vocab.CONFIGURE_MENUITEMS))
        if await configure.count():
            await configure.first.click(timeout=CLICK_TIMEOUT_MS)
            await self.settle()
            return "legacy", page.get_by_role("dialog").filter(has=page.get_by_role("radio"))
        families = page.get_by_role("menuitemradio", name=exact_any(vocab.FAMILY_NAMES))
        if await families.count():
            return "chips", page.get_by_role("menu").filter(has=families)
        return None, page.get_by_role("menu")

    async def effort(self, generation: str, container: Locator | None) -> None:
        if container is None:  # every recognised generation names what opened
            return
        expected = EXPECT_EFFORT[generation]
        if generation == "power":
            power = container.get_by_role("menuitem", name=exact_any(vocab.POWER_ITEMS)).first
            found, ok = power_effort(await self.chat.described_by(power))
        elif generation == "intelligence":
            found, ok = await self.intelligence_rows()
        elif generation == "legacy":
            found, ok = await self.effort_in(container.first, "combobox")
        else:
            found, ok = await self.effort_in(self.page, "menuitemradio")
        self.add("effort control", expected, found, ok)

    async def intelligence_rows(self) -> tuple[str, bool]:
        advanced = self.page.get_by_role("menuitem", name=exact_any(vocab.SHOW_ADVANCED))
        if await advanced.count():
            await advanced.first.click(timeout=CLICK_TIMEOUT_MS)  # a disclosure, not a choice
            await self.settle()
        rows = [r.strip() for r in await self.names(self.page.get_by_role("menuitemradio"))]
        missing = missing_tiers(rows)
        found = describe_names("menuitemradio", rows)
        return (found + (f"; no row for {', '.join(missing)}" if missing else "")), not missing

    async def effort_in(self, scope: Any, role: str) -> tuple[str, bool]:
        """The effort control of the legacy dialog (a combobox) or of the chips menu (radio
        rows); an Instant selection shows the auto-switch switch instead."""
        if role == "combobox":
            names = exact_any(vocab.THINKING_EFFORT_COMBOBOXES + vocab.PRO_EFFORT_COMBOBOXES)
            combo = scope.get_by_role("combobox", name=names)
            if await combo.count():
                value = (await combo.first.inner_text()).strip()
                label = await name_of(combo.first)
                return (
                    f'combobox "{label}" showing "{value}"',
                    base_name(value) in vocab.EFFORT_LABELS.values(),
                )
        else:
            rows = []
            for label in vocab.EFFORT_LABELS.values():
                if await scope.get_by_role(role, name=choice(label)).count():
                    rows.append(label)
            if rows:
                return describe_names(role, rows), True
        switch = scope.get_by_role("switch", name=prefix_any(vocab.AUTO_SWITCH_PREFIXES))
        if await switch.count():
            return f'switch "{await name_of(switch.first)}" (Instant selected)', True
        return describe_names(role, await self.names(scope.get_by_role(role))), False

    # Closing, confirmed ------------------------------------------------------------------------

    async def is_open(
        self, opener: ElementHandle | None, container: Locator | None, *, dialog: bool
    ) -> bool:
        """A menu is open while its opener says `aria-expanded="true"` (the opener owns that
        word, so a lingering menu node does not count); without the word, and for a dialog
        (its opener's menu closed when it opened), while the menu or dialog is still shown."""
        expanded = None
        # A detached opener (re-rendered) is not visible: its stale word does not count.
        if opener is not None and await opener.is_visible():
            expanded = await opener.get_attribute("aria-expanded")
        if not dialog and expanded in ("true", "false"):
            return expanded == "true"
        if container is None or not await container.count():
            return False
        return await container.first.is_visible()

    async def close(
        self,
        entry: str,
        opener: ElementHandle | None,
        container: Locator | None,
        *,
        dialog: bool = False,
    ) -> None:
        """Close what the probe opened: a dialog's close control, Escape, then a click on the
        opener (some menus ignore Escape); the entry says which one worked, or that none did."""
        attempts: list[tuple[str, Callable[[], Awaitable[None]]]] = [
            ("Escape", lambda: self.page.keyboard.press("Escape")),
            ("a click on the opener", lambda: self.click_opener(opener)),
        ]
        if dialog:  # a dialog has a close control of its own: the one a person would use
            attempts.insert(0, ("its close control", lambda: self.click_close(container)))
        how = "already closed"
        for label, attempt in attempts:
            if not await self.is_open(opener, container, dialog=dialog):
                self.add(entry, EXPECT_CLOSED, f"closed by {how}", True)
                return
            how = label
            with contextlib.suppress(Exception):  # a way that fails leaves the next one
                await attempt()
            await self.settle()
        still_open = await self.is_open(opener, container, dialog=dialog)
        found = f"closed by {how}" if not still_open else "still open after every way to close it"
        self.add(entry, EXPECT_CLOSED, found, not still_open)

    async def click_close(self, container: Locator | None) -> None:
        if container is None:
            return
        close = container.get_by_role("button", name=exact_any(vocab.CLOSE_LABELS))
        if await close.count():
            await close.first.click(timeout=CLICK_TIMEOUT_MS)

    async def click_opener(self, opener: ElementHandle | None) -> None:
        if opener is not None and await opener.is_visible():
            await opener.click(timeout=CLICK_TIMEOUT_MS)

    # Send and stop -----------------------------------------------------------------------------

    async def send_and_stop(self) -> None:
        send = self.chat.send_button()
        if not await self.unobstructed("send", send):
            return
        if await send.count():
            name = await name_of(send.first)
            state = "enabled" if await send.first.is_enabled() else "disabled"
            self.seen["send"] = (name, ("send",))
            self.add("send", EXPECT_SEND, f'button "{name}", {state}', True)
        else:
            found, ok = await self.send_after_typing()
            self.add("send", EXPECT_SEND, found, ok)
        stop = self.page.locator(vocab.STOP_SELECTOR).or_(
            self.page.get_by_role("button", name=exact_any(vocab.STOP_LABELS))
        )
        shown = await stop.count()
        # Idle, the page shows no stop; the vocabulary knows both ways to see one.
        found = "shown while idle (a stale stop?)" if shown else "not shown while idle"
        self.add("stop", EXPECT_STOP, found, True)

    async def language(self) -> None:
        """The page's language, the table it picks, and the labels read above that the table
        does not spell (found through another language, or to add to the table)."""
        found, ok = language_finding(await page_language(self.page), self.seen)
        self.add("UI language", EXPECT_LANGUAGE, found, ok)

    async def send_after_typing(self) -> tuple[str, bool]:
        """Send the way a job reaches it: some pages show it only once the composer holds
        text. Type, look, clear; never click it."""
        box = self.chat.composer()
        if not await box.count():
            return "no composer to type into, and no Send on the empty composer", False
        try:
            await box.first.fill(PROBE_TEXT)
            await self.settle()
            send = self.chat.send_button()
            if await send.count():
                name = await name_of(send.first)
                self.seen["send"] = (name, ("send",))
                state = "enabled" if await send.first.is_enabled() else "disabled"
                return f'button "{name}", {state} once text is typed (absent while empty)', True
            others = await self.names(self.chat.composer_region().get_by_role("button"))
            return describe_names("button", others) + ", even with text typed", False
        finally:
            await self.chat.clear_composer()


async def probe(run: Probe) -> list[ProbeEntry]:
    """Every entry, in the order a job meets them. Never raises for what the page shows."""
    await run.guarded("composer", EXPECT_COMPOSER, run.composer)
    await run.guarded("add files", EXPECT_ADD, run.attach)
    await run.guarded("model picker", EXPECT_OPENER, run.picker)
    await run.guarded("send", EXPECT_SEND, run.send_and_stop)
    await run.guarded("UI language", EXPECT_LANGUAGE, run.language)
    return run.entries


class ChatGPTLiveProbe:
    """ChatGPT's `LiveProbe` (its registry entry's ``live_probe``): `/backend-api/me` for the
    session, the job's own readiness wait, then :func:`probe`."""

    def __init__(self, page: Page) -> None:
        self.chat = ChatGPTPage(page)
        self.run = Probe(self.chat)

    async def identity(self) -> tuple[int, str | None]:
        return await self.chat.identity()

    async def wait_ready(self, config: Config) -> None:
        async def quiet(_state: Any) -> None:
            return None

        await wait_until_ready(
            self.chat,
            allowed_origins(config.browser.chat_url, config.browser.auth_url),
            timeout_s=config.worker.readiness_timeout_ms / 1000,
            on_failure=quiet,
            log=lambda _message: None,
        )

    async def entries(self) -> list[ProbeEntry]:
        return await probe(self.run)

    def plan_refusal(self, selection: dict[str, Any]) -> OracleError | None:
        """What a job of ``selection`` would be refused with because the picker showed its
        model locked (None: not locked, a tool rather than a model, or the picker unread)."""
        locked = self.run.locked
        if locked is None or selection.get("tool"):
            return None
        preset = str(selection.get("preset"))
        return plans.refusal(selection["modelFamily"], selection.get("effort"), preset, locked)
