"""Every preset on every picker generation, both shells, in real Chromium (no worker)."""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import Browser, Page

from oraculum.core.config import Config
from oraculum.core.presets import resolve_selection
from oraculum.providers.chatgpt.page import ChatGPTPage
from oraculum.providers.chatgpt.pickers import Configurator, Wanted, parse_power, tier_matches

from .conftest import signed_in_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MODEL_PRESETS = [
    "pro_standard",
    "pro_extended",
    "thinking_light",
    "thinking_standard",
    "thinking_extended",
    "thinking_heavy",
    "instant",
    "instant_auto_switch",
]
EXPECTED_SHOWS = {
    "power": {
        "pro_standard": "Pro",
        "pro_extended": "Pro",
        "thinking_light": "Medium",
        "thinking_standard": "Medium",
        "thinking_extended": "High",
        "thinking_heavy": "Extra High",
        "instant": "Instant",
        "instant_auto_switch": "Instant",
    },
    "chips": {
        "pro_standard": "Pro",
        "pro_extended": "Extended Pro",
        "thinking_light": "Light Thinking",
        "thinking_standard": "Thinking",
        "thinking_extended": "Extended Thinking",
        "thinking_heavy": "Heavy Thinking",
        "instant": "Instant",
        "instant_auto_switch": "Instant",
    },
}
EXPECTED_SHOWS["intelligence"] = EXPECTED_SHOWS["power"]


def test_power_description_parsing() -> None:
    text = "Extra High, 4 of 5. Use Left and Right arrow keys to adjust power."
    assert parse_power(text) == ("Extra High", 4, 5)
    assert parse_power("Pro, 6 of 5.") is None
    assert parse_power("Pro, 0 of 5.") is None
    assert parse_power("nothing here") is None


@pytest.mark.parametrize(
    ("row", "tier", "matches"),
    [
        ("Medium 5–30s", "Medium", True),
        ("High 15-60s", "High", True),
        ("Extra High", "High", False),
        ("Extra High", "Extra High", True),
        ("6 Pro", "Pro", True),
        ("Pro 5+ min", "Pro", True),
        ("Pro Extended", "Pro", False),
        ("Instant 5s", "Instant", True),
    ],
)
def test_tier_matching(row: str, tier: str, matches: bool) -> None:
    assert tier_matches(row, tier) is matches


# Issue 14: the drift an independent page showed, all at once (a zero-height slider applies to
# the power picker only; the others ignore it).
DRIFT = "drift_sticky_menu,drift_opener_relabel,drift_zero_height_slider"


async def configure_all(
    page: Page,
    sim,
    shell: str,
    picker: str,
    scenario: str = "",
    presets: list[str] = MODEL_PRESETS,
) -> dict[str, dict]:
    """Each preset configured from another model on ``page``; what the driver read back, with
    the family the simulator's server was told (``serverFamily``)."""
    config = Config()
    knobs = {"scenario": scenario} if scenario else {}
    results = {}
    chat = ChatGPTPage(page)
    for preset in presets:
        # Start each preset from a different model so every change is a real change.
        start = "pro/extended" if not preset.startswith("pro") else "instant"
        await page.goto(sim.chat_url(shell=shell, picker=picker, model=start, **knobs))
        await page.locator("#prompt-textarea[contenteditable=true]").wait_for()
        wanted = Wanted.from_selection(resolve_selection("chatgpt", preset, config).to_json_dict())
        configurator = Configurator(chat, lambda _m: None)
        observed = await configurator.configure(wanted)
        # Never continue with a menu open: the opener must say it is closed.
        opener = await configurator.find_opener()
        assert opener is not None, (preset, shell, scenario)
        assert await opener.get_attribute("aria-expanded") != "true", (preset, shell, scenario)
        results[preset] = observed.to_json_dict() | {
            "serverFamily": await server_family(sim, wanted.family)
        }
    return results


async def server_family(sim, wanted: str) -> str:
    """The family the page last posted to the simulator's server (it posts just after it
    renders a choice, so give it a moment to arrive)."""
    for _ in range(40):
        if sim.state.selection.family == wanted:
            break
        await asyncio.sleep(0.05)
    return sim.state.selection.family


# Both shells, as shipped and drifted: one picker's four pages in one page of the module's one
# browser (a Chromium start-up per combination was a third of the matrix's time).
PAGES = [(shell, scenario) for shell in ("classic", "redesign") for scenario in ("", DRIFT)]


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("picker", ["legacy", "chips", "intelligence", "power"])
async def test_every_preset_on_every_picker(sim, module_chromium: Browser, picker: str) -> None:
    async with signed_in_page(module_chromium, sim) as page:
        pages = {
            (shell, scenario): await configure_all(page, sim, shell, picker, scenario)
            for shell, scenario in PAGES
        }
    for (shell, scenario), results in pages.items():
        assert list(results) == MODEL_PRESETS, (shell, scenario)
        for preset, observed in results.items():
            check_observed(picker, preset, observed | {"page": (shell, scenario or "as-shipped")})


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("picker", ["legacy", "chips", "intelligence", "power"])
async def test_a_slow_picker_is_waited_for(sim, module_chromium: Browser, picker: str) -> None:
    """Every choice shows 0.7 s late (drift_slow_picker): more than the fixed pause the driver
    once took after each step. Each step waits for its effect instead, so the read-back is
    the choice made, not the one before it."""
    presets = ["thinking_extended", "pro_extended", "instant"]
    async with signed_in_page(module_chromium, sim) as page:
        results = await configure_all(page, sim, "classic", picker, "drift_slow_picker", presets)
    assert list(results) == presets
    for preset, observed in results.items():
        check_observed(picker, preset, observed)


def check_observed(picker: str, preset: str, observed: dict) -> None:
    selection = resolve_selection("chatgpt", preset, Config())
    assert observed["picker"] == picker, (preset, observed)
    assert observed["family"] == selection.model_family, (preset, observed)
    assert observed["serverFamily"] == selection.model_family, (preset, observed)
    if picker in EXPECTED_SHOWS:
        assert observed["shows"].endswith(EXPECTED_SHOWS[picker][preset]), (preset, observed)
    if picker == "legacy":
        assert observed["verification"] == "strong", (preset, observed)
        if selection.model_family == "instant":
            assert observed["autoSwitchToThinking"] is selection.auto_switch_to_thinking, (
                preset,
                observed,
            )
        else:
            assert observed["effort"] == selection.effort, (preset, observed)
    if picker in ("power", "intelligence") and selection.model_family == "pro":
        assert observed["effort"] == selection.effort, (preset, observed)
        assert observed["verification"] == "strong", (preset, observed)
