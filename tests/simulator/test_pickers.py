"""The four model pickers and the modals, on both shells, driven by role and name."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from oraculum.simulator import Simulator

from .helpers import (
    SHELLS,
    assistant_turns,
    composer,
    eventually,
    raise_power_twice,
    send,
    wait_answer_done,
    wait_editable,
)

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]


def _selection(sim: Simulator) -> tuple[str, str]:
    return sim.state.selection.family, sim.state.selection.effort


async def _open(page: Page, sim: Simulator, shell: str, picker: str, **knobs: object) -> None:
    await page.goto(sim.chat_url(shell=shell, picker=picker, **knobs))
    await wait_editable(page)


@pytest.mark.parametrize("shell", SHELLS)
async def test_legacy_configuration_dialog(page: Page, sim: Simulator, shell: str) -> None:
    await _open(page, sim, shell, "legacy")
    await page.get_by_role("button", name="Model selector").click()
    await page.get_by_role("menuitem", name="Configure...").click()
    dialog = page.get_by_role("dialog", name="Model configuration")
    await expect(dialog).to_be_visible()
    await expect(dialog.get_by_role("radio", name="Thinking")).to_have_attribute(
        "aria-checked", "true"
    )
    effort = dialog.get_by_role("combobox", name="Thinking effort")
    await expect(effort).to_have_text("Standard")
    await effort.click()
    await expect(dialog.get_by_role("option")).to_have_count(4)
    await dialog.get_by_role("option", name="Heavy").click()
    await expect(effort).to_have_text("Heavy")
    await eventually(lambda: _selection(sim), ("thinking", "heavy"))

    await dialog.get_by_role("radio", name="Pro").click()
    pro_effort = dialog.get_by_role("combobox", name="Pro thinking effort")
    await expect(pro_effort).to_have_text("Standard")
    await pro_effort.click()
    await expect(dialog.get_by_role("option")).to_have_count(2)
    await dialog.get_by_role("option", name="Extended").click()
    await expect(pro_effort).to_have_text("Extended")
    await eventually(lambda: _selection(sim), ("pro", "extended"))

    await dialog.get_by_role("radio", name="Instant").click()
    toggle = dialog.get_by_role("switch", name="Auto-switch to Thinking")
    await expect(toggle).to_have_attribute("aria-checked", "true")
    await toggle.click()
    await expect(toggle).to_have_attribute("aria-checked", "false")
    await eventually(lambda: sim.state.selection.auto_switch, False)
    await dialog.get_by_role("button", name="Close").click()
    await expect(dialog).to_have_count(0)
    await expect(page.get_by_role("button", name="Model selector")).to_have_text("ChatGPT Instant")


@pytest.mark.parametrize("shell", SHELLS)
async def test_removable_composer_chips(page: Page, sim: Simulator, shell: str) -> None:
    await _open(page, sim, shell, "chips")
    await expect(page.get_by_role("button", name="Thinking, click to remove")).to_be_visible()
    await page.get_by_role("button", name="Model", exact=True).click()
    menu = page.get_by_role("menu", name="Model")
    await menu.get_by_role("menuitemradio", name="Pro", exact=True).click()
    await menu.get_by_role("menuitemradio", name="Extended").click()
    await expect(menu).to_have_count(0)
    chip = page.get_by_role("button", name="Extended Pro, click to remove")
    await expect(chip).to_be_visible()
    await eventually(lambda: _selection(sim), ("pro", "extended"))
    await chip.click()
    await expect(chip).to_have_count(0)
    await eventually(lambda: _selection(sim)[0], "instant")
    await page.get_by_role("button", name="Model", exact=True).click()
    await expect(page.get_by_role("switch", name="Auto-switch to Thinking")).to_have_attribute(
        "aria-checked", "true"
    )


@pytest.mark.parametrize("shell", SHELLS)
async def test_compact_intelligence_menu(page: Page, sim: Simulator, shell: str) -> None:
    await _open(page, sim, shell, "intelligence")
    pill = page.get_by_role("button", name="Medium", exact=True)
    await pill.click()
    menu = page.get_by_role("menu", name="Intelligence", exact=False).first
    await expect(menu.get_by_role("heading", name="Intelligence")).to_be_visible()
    await expect(menu.get_by_role("menuitemradio")).to_have_count(0)
    await menu.get_by_role("menuitem", name="Show advanced options").click()
    await expect(menu.get_by_role("menuitem", name="Effort Medium")).to_have_attribute(
        "aria-expanded", "true"
    )
    await expect(menu.get_by_role("menuitemradio", name="Medium 5–30s")).to_have_attribute(
        "aria-checked", "true"
    )
    await menu.get_by_role("menuitemradio", name="High 15–60s").click()
    await expect(page.get_by_role("button", name="High", exact=True)).to_be_visible()
    await eventually(lambda: _selection(sim), ("thinking", "extended"))

    await page.get_by_role("button", name="High", exact=True).click()
    await page.get_by_role("menuitem", name="Effort High").click()
    await page.get_by_role("menuitem", name="Pro effort options").click()
    await page.get_by_role("menuitemradio", name="Pro Extended").click()
    await expect(page.get_by_role("button", name="Pro", exact=True)).to_be_visible()
    await eventually(lambda: _selection(sim), ("pro", "extended"))


@pytest.mark.parametrize("shell", SHELLS)
async def test_power_slider(page: Page, sim: Simulator, shell: str) -> None:
    await _open(page, sim, shell, "power")
    pill = page.get_by_role("button", name="Medium", exact=True)
    await pill.click()
    opener = page.get_by_role("button", name="Thinking effort")
    await expect(opener).to_have_attribute("aria-expanded", "true")
    menu = page.get_by_role("menu", name="Thinking effort")
    await expect(menu.get_by_role("menuitem", name="Select model")).to_have_attribute(
        "aria-expanded", "false"
    )
    power = menu.get_by_role("menuitem", name="Power")
    await expect(power).to_have_accessible_description(
        "Medium, 2 of 5. Use Left and Right arrow keys to adjust power."
    )
    await raise_power_twice(page, power)
    await eventually(lambda: _selection(sim), ("thinking", "heavy"))
    await page.keyboard.press("ArrowRight")
    await expect(menu.get_by_role("menuitemradio", name="Standard")).to_be_visible()
    await menu.get_by_role("menuitemradio", name="Extended").click()
    await eventually(lambda: _selection(sim), ("pro", "extended"))

    await menu.get_by_role("menuitem", name="Select model").click()
    await expect(menu.get_by_role("menuitemradio", name="Latest")).to_have_attribute(
        "aria-checked", "true"
    )
    await menu.get_by_role("menuitem", name="Select model").click()
    await page.keyboard.press("Escape")
    await expect(menu).to_have_count(0)
    await expect(page.get_by_role("button", name="Pro", exact=True)).to_have_attribute(
        "aria-expanded", "false"
    )

    # Stepping all the way down to Instant closes the whole picker (facts §1.4d).
    await page.get_by_role("button", name="Pro", exact=True).click()
    await menu.get_by_role("menuitem", name="Power").focus()
    for _ in range(4):
        if await menu.count() == 0:
            break
        await page.keyboard.press("ArrowLeft")
    await expect(menu).to_have_count(0)
    await expect(page.get_by_role("button", name="Instant", exact=True)).to_be_visible()

    # The model chosen is the one the sent message records.
    await send(page, shell, "which model?")
    await wait_answer_done(page, shell)
    [user] = sim.state.user_messages()
    assert user.model is not None and user.model.family == "instant"
    await expect(assistant_turns(page)).to_contain_text("Model: Instant")


async def test_model_knob_sets_the_picker_state(page: Page, sim: Simulator) -> None:
    await _open(page, sim, "redesign", "power", model="pro/extended")
    await expect(page.get_by_role("button", name="Pro", exact=True)).to_be_visible()
    await send(page, "redesign", "hi")
    await wait_answer_done(page, "redesign")
    await expect(page.get_by_text("Worked for 1s")).to_be_visible()


async def test_pro_feedback_modal(page: Page, sim: Simulator) -> None:
    await _open(page, sim, "classic", "power", scenario="pro_feedback")
    dialog = page.get_by_role("dialog", name="Pro feedback")
    await expect(dialog).to_be_visible()
    await expect(page.get_by_role("heading", name="Pro feedback")).to_be_visible()
    await dialog.get_by_role("button", name="Close").click()
    await expect(dialog).to_have_count(0)
    await composer(page, "classic").fill("now usable")


@pytest.mark.parametrize("shell", SHELLS)
async def test_announcement_close_dialog_is_safe(page: Page, sim: Simulator, shell: str) -> None:
    await _open(page, sim, shell, "power", scenario="announcement", draft="keep me")
    dialog = page.get_by_role("dialog")
    await expect(dialog).to_be_visible()
    await page.get_by_role("button", name="Close dialog").click()
    await expect(dialog).to_have_count(0)
    await expect(composer(page, shell)).to_have_text("keep me")
    assert _selection(sim) == ("thinking", "standard")


async def test_announcement_get_started_is_a_trap(page: Page, sim: Simulator) -> None:
    url = sim.chat_url(scenario="announcement", draft="my careful draft")
    await page.goto(url)
    await page.get_by_role("button", name="Get started").click()
    await expect(page).to_have_url(sim.url + "/")
    assert _selection(sim)[0] == "instant"
    assert sim.state.events_of("announcement_get_started")
