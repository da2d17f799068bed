"""Issue 14 §4: the drift flags, in real Chromium by role and accessible name.

Each flag changes only mechanics (what is visible, what closes a menu, what a name says while
a menu is open, when Send enables, when an upload chip is done); the vocabulary stays the
facts file's. Every flag runs on both shells and with each picker generation it applies to.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Locator, Page, expect

from oraculum.simulator import Simulator

from .helpers import (
    SHELLS,
    attach,
    composer,
    eventually,
    make_tar_zst,
    raise_power_twice,
    send_button,
    wait_answer_done,
    wait_editable,
)

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]


@dataclass(frozen=True)
class PickerUi:
    """How a person finds one generation's picker: the opener's name while closed, its name
    while open (normal mechanics), its name while open under drift_opener_relabel, and the
    menu it opens."""

    closed: str
    open: str
    relabelled: str
    menu: str


# The account starts at thinking/standard: "Medium" on the tier pills.
PICKER_UI = {
    "legacy": PickerUi("Model selector", "Model selector", "Configure model", "Model"),
    "chips": PickerUi("Model", "Model", "Choose model", "Model"),
    "intelligence": PickerUi("Medium", "Medium", "Intelligence", "Intelligence"),
    "power": PickerUi("Medium", "Thinking effort", "Thinking effort", "Thinking effort"),
}
PICKERS = tuple(PICKER_UI)


async def _open_page(page: Page, sim: Simulator, **knobs: Any) -> None:
    await page.goto(sim.chat_url(**knobs))
    await wait_editable(page)


def _button(page: Page, name: str) -> Locator:
    return page.get_by_role("button", name=name, exact=True)


def _menu(page: Page, ui: PickerUi) -> Locator:
    # The intelligence menu's name lists its tiers after "Intelligence" (facts §1.4c).
    return page.get_by_role("menu", name=ui.menu, exact=ui.menu != "Intelligence")


# -- drift_zero_height_slider -------------------------------------------------------------------
@pytest.mark.parametrize("shell", SHELLS)
async def test_drift_zero_height_slider_is_collapsed_yet_steps_by_keyboard(
    page: Page, sim: Simulator, shell: str
) -> None:
    await _open_page(page, sim, shell=shell, picker="power", scenario="drift_zero_height_slider")
    await _button(page, "Medium").click()
    opener = _button(page, "Thinking effort")
    menu = page.get_by_role("menu", name="Thinking effort")
    power = menu.get_by_role("menuitem", name="Power")
    slider = menu.get_by_role("slider", name="Power level")

    # In the accessibility tree, with its description, but no pixels: "not visible".
    await expect(power).to_have_count(1)
    await expect(power).to_have_accessible_description(
        "Medium, 2 of 5. Use Left and Right arrow keys to adjust power."
    )
    for control in (power, slider):
        box = await control.bounding_box()
        assert box is not None and box["height"] == 0, box
        await expect(control).not_to_be_visible()
    await expect(menu).to_be_visible()
    await expect(opener).to_have_attribute("aria-expanded", "true")

    await raise_power_twice(page, power)
    await expect(slider).to_have_attribute("aria-valuenow", "3")
    await eventually(
        lambda: (sim.state.selection.family, sim.state.selection.effort), ("thinking", "heavy")
    )
    await page.keyboard.press("ArrowLeft")
    await expect(power).to_have_accessible_description(
        "High, 3 of 5. Use Left and Right arrow keys to adjust power."
    )
    # Still open: the collapsed slider says nothing about the menu.
    await expect(opener).to_have_attribute("aria-expanded", "true")
    await expect(menu).to_be_visible()


async def test_power_slider_is_visible_without_drift(page: Page, sim: Simulator) -> None:
    await _open_page(page, sim, picker="power")
    await _button(page, "Medium").click()
    power = page.get_by_role("menu", name="Thinking effort").get_by_role("menuitem", name="Power")
    await expect(power).to_be_visible()


# -- drift_sticky_menu --------------------------------------------------------------------------
@pytest.mark.parametrize("picker", PICKERS)
@pytest.mark.parametrize("shell", SHELLS)
async def test_drift_sticky_menu_ignores_escape_until_the_opener_is_clicked(
    page: Page, sim: Simulator, shell: str, picker: str
) -> None:
    ui = PICKER_UI[picker]
    await _open_page(page, sim, shell=shell, picker=picker, scenario="drift_sticky_menu")
    await _button(page, ui.closed).click()
    menu = _menu(page, ui)
    opener = _button(page, ui.open)
    await expect(menu).to_be_visible()
    await expect(opener).to_have_attribute("aria-expanded", "true")

    await page.keyboard.press("Escape")
    await eventually(lambda: len(sim.state.events_of("page:escape_ignored")), 1)
    # A click elsewhere (the composer, a driver's fallback) does not close it either.
    await composer(page, shell).click()
    await expect(menu).to_be_visible()
    await expect(opener).to_have_attribute("aria-expanded", "true")
    # Nor does another popover open over it.
    plus = page.get_by_role("button", name="Add files and more")
    await plus.click()
    await eventually(lambda: len(sim.state.events_of("page:menu_still_open")), 1)
    await expect(plus).to_have_attribute("aria-expanded", "false")
    await expect(page.get_by_text("Web searchFind real-time news and info")).to_have_count(0)
    await expect(menu).to_be_visible()

    await opener.click()
    await expect(menu).to_have_count(0)
    await expect(_button(page, ui.closed)).to_have_attribute("aria-expanded", "false")


@pytest.mark.parametrize("shell", SHELLS)
async def test_drift_sticky_menu_legacy_dialog_closes_only_with_close(
    page: Page, sim: Simulator, shell: str
) -> None:
    await _open_page(page, sim, shell=shell, picker="legacy", scenario="drift_sticky_menu")
    await _button(page, "Model selector").click()
    await page.get_by_role("menuitem", name="Configure...").click()
    dialog = page.get_by_role("dialog", name="Model configuration")
    await expect(dialog).to_be_visible()
    await page.keyboard.press("Escape")
    await eventually(lambda: len(sim.state.events_of("page:escape_ignored")), 1)
    await expect(dialog).to_be_visible()
    await dialog.get_by_role("button", name="Close").click()
    await expect(dialog).to_have_count(0)


async def test_escape_closes_menus_without_drift(page: Page, sim: Simulator) -> None:
    await _open_page(page, sim, picker="chips")
    await _button(page, "Model").click()
    await expect(page.get_by_role("menu", name="Model")).to_be_visible()
    await page.keyboard.press("Escape")
    await expect(page.get_by_role("menu", name="Model")).to_have_count(0)


# -- drift_opener_relabel -----------------------------------------------------------------------
@pytest.mark.parametrize("picker", PICKERS)
@pytest.mark.parametrize("shell", SHELLS)
async def test_drift_opener_relabel_renames_the_opener_while_open(
    page: Page, sim: Simulator, shell: str, picker: str
) -> None:
    ui = PICKER_UI[picker]
    await _open_page(page, sim, shell=shell, picker=picker, scenario="drift_opener_relabel")
    closed = _button(page, ui.closed)
    await expect(closed).to_have_attribute("aria-expanded", "false")
    await closed.click()
    relabelled = _button(page, ui.relabelled)
    await expect(relabelled).to_have_attribute("aria-expanded", "true")
    await expect(closed).to_have_count(0)  # the closed name is gone while the menu is open
    await expect(_menu(page, ui)).to_be_visible()

    await page.keyboard.press("Escape")  # normal mechanics: Escape closes
    await expect(_menu(page, ui)).to_have_count(0)
    await expect(closed).to_have_attribute("aria-expanded", "false")
    await expect(_button(page, ui.relabelled)).to_have_count(0)


@pytest.mark.parametrize("shell", SHELLS)
async def test_drift_sticky_relabelled_power_pill_is_the_reported_stall(
    page: Page, sim: Simulator, shell: str
) -> None:
    """Issue 14's stall, reproduced: after stepping, Escape leaves the menu open and the pill
    reads "Thinking effort"; only a click on that pill closes it and brings back the stop."""
    flags = "drift_sticky_menu,drift_opener_relabel,drift_zero_height_slider"
    await _open_page(page, sim, shell=shell, picker="power", scenario=flags)
    await _button(page, "Medium").click()
    menu = page.get_by_role("menu", name="Thinking effort")
    await menu.get_by_role("menuitem", name="Power").focus()
    await page.keyboard.press("ArrowRight")
    await eventually(lambda: sim.state.selection.effort, "extended")
    await page.keyboard.press("Escape")
    await eventually(lambda: len(sim.state.events_of("page:escape_ignored")), 1)
    await expect(menu).to_be_visible()
    pill = _button(page, "Thinking effort")
    await expect(pill).to_have_attribute("aria-expanded", "true")
    await pill.click()
    await expect(menu).to_have_count(0)
    await expect(_button(page, "High")).to_have_attribute("aria-expanded", "false")


# -- drift_send_needs_text ----------------------------------------------------------------------
@pytest.mark.parametrize("shell", SHELLS)
async def test_drift_send_needs_text_even_with_a_finished_attachment(
    page: Page, sim: Simulator, tmp_path: Path, shell: str
) -> None:
    archive = tmp_path / "context-needs-text.tar.zst"
    make_tar_zst(archive, {"a.txt": b"a"})
    await _open_page(page, sim, shell=shell, scenario="drift_send_needs_text", answer="echo")
    await attach(page, archive)
    chip = page.locator('[data-testid="file-chip"]')
    await expect(chip).to_have_attribute("data-state", "done")
    await expect(page.get_by_role("progressbar")).to_have_count(0)
    await page.wait_for_timeout(300)  # long enough for any late enabling to show
    await expect(send_button(page, shell)).to_be_disabled()

    await composer(page, shell).fill("now with text")
    await expect(send_button(page, shell)).to_be_enabled()
    await composer(page, shell).fill("")
    await expect(send_button(page, shell)).to_be_disabled()
    await composer(page, shell).fill("send it")
    await send_button(page, shell).click()
    await wait_answer_done(page, shell)
    [user] = sim.state.user_messages()
    assert user.text == "send it"
    assert [sim.state.uploads[i].name for i in user.attachments] == [archive.name]


async def test_finished_attachment_alone_enables_send_without_drift(
    page: Page, sim: Simulator, tmp_path: Path
) -> None:
    archive = tmp_path / "context-alone.tar.zst"
    make_tar_zst(archive, {"a.txt": b"a"})
    await _open_page(page, sim)
    await attach(page, archive)
    await expect(send_button(page, "classic")).to_be_enabled()


# -- drift_upload_lingers -----------------------------------------------------------------------
LINGER_MS = 1500

# Every change of the chip's data-state, with the page's clock, from before the chip exists.
_WATCH_CHIP_JS = """() => {
  window.__chipStates = [];
  const record = (state) => window.__chipStates.push({ state, at: performance.now() });
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === "attributes") record(r.target.getAttribute("data-state"));
      for (const n of r.addedNodes || []) if (n.dataset && n.dataset.state) record(n.dataset.state);
    }
  }).observe(document.getElementById("attachments"),
    { subtree: true, childList: true, attributes: true, attributeFilter: ["data-state"] });
}"""


async def _attach_lingering(page: Page, sim: Simulator, shell: str, path: Path) -> Locator:
    make_tar_zst(path, {"src/app.py": b"print('hi')\n"})
    await _open_page(
        page,
        sim,
        shell=shell,
        scenario="drift_upload_lingers",
        upload_linger_ms=LINGER_MS,
        answer="echo",
    )
    await page.evaluate(_WATCH_CHIP_JS)
    await page.get_by_role("button", name="Add files and more").click()
    await page.locator("input[type=file]").set_input_files(str(path))
    chip = page.locator('[data-testid="file-chip"]')
    # Processing: the chip keeps its name, shows a spinner and says so (facts §1.5, §3.9).
    await expect(chip).to_have_attribute("data-state", "loading")
    await expect(chip).to_have_attribute("aria-busy", "true")
    await expect(_button(page, path.name)).to_be_visible()
    spinner = page.get_by_role("progressbar", name=f"Processing {path.name}")
    await expect(spinner).to_be_visible()
    assert await spinner.get_attribute("aria-valuenow") is None  # indeterminate
    await expect(chip).to_contain_text("Processing")
    return chip


@pytest.mark.parametrize("shell", SHELLS)
async def test_drift_upload_lingers_in_processing_for_upload_linger_ms(
    page: Page, sim: Simulator, tmp_path: Path, shell: str
) -> None:
    archive = tmp_path / "context-linger.tar.zst"
    chip = await _attach_lingering(page, sim, shell, archive)
    # No text: a processing chip does not make a message; with text, Send is already enabled.
    await expect(send_button(page, shell)).to_be_disabled()
    await composer(page, shell).fill("after processing")
    await expect(send_button(page, shell)).to_be_enabled()
    await expect(chip).to_have_attribute("data-state", "loading")

    await expect(chip).to_have_attribute("data-state", "done", timeout=LINGER_MS + 5000)
    await expect(page.get_by_role("progressbar")).to_have_count(0)
    await expect(chip).not_to_contain_text("Processing")
    assert await chip.get_attribute("aria-busy") is None
    states = await page.evaluate("() => window.__chipStates")
    order = [s["state"] for s in states]
    assert order == ["uploading", "loading", "done"], order
    lingered = states[2]["at"] - states[1]["at"]
    assert LINGER_MS - 50 <= lingered <= LINGER_MS + 1000, lingered

    await send_button(page, shell).click()
    await wait_answer_done(page, shell)
    [user] = sim.state.user_messages()
    assert [sim.state.uploads[i].name for i in user.attachments] == [archive.name]
    assert sim.state.events_of("send_while_processing") == []


@pytest.mark.parametrize("shell", SHELLS)
async def test_drift_upload_lingers_records_a_send_while_processing(
    page: Page, sim: Simulator, tmp_path: Path, shell: str
) -> None:
    archive = tmp_path / "context-early.tar.zst"
    chip = await _attach_lingering(page, sim, shell, archive)
    await composer(page, shell).fill("too early")
    await send_button(page, shell).click()  # trusting Send, while the chip still processes
    await wait_answer_done(page, shell)
    [event] = sim.state.events_of("send_while_processing")
    [user] = sim.state.user_messages()
    assert event["names"] == [archive.name]
    assert event["conversation_id"] and event["message_id"] == user.message_id
    # The message still carries the file: its bytes had arrived.
    assert [sim.state.uploads[i].name for i in user.attachments] == [archive.name]
    await expect(chip).to_have_count(0)
