"""Preset registry, normalisation and provider/mode resolution."""

from __future__ import annotations

from pathlib import Path

import pytest

from oraculum.core.config import Config, load_config
from oraculum.core.errors import ExitCode, OracleError
from oraculum.core.presets import (
    PRESET_IDS,
    PRESETS,
    PRESETS_BY_ID,
    Selection,
    build_alias_table,
    normalize_grok_mode,
    normalize_key,
    normalize_preset,
    normalize_provider,
    resolve_selection,
)

# id -> (label, modelFamily, effort, autoSwitchToThinking, tool), as the reference table gives it.
EXPECTED = {
    "pro_standard": ("Pro - Standard", "pro", "standard", False, None),
    "pro_extended": ("Pro - Extended", "pro", "extended", False, None),
    "thinking_light": ("Thinking - Light", "thinking", "light", False, None),
    "thinking_standard": ("Thinking - Standard", "thinking", "standard", False, None),
    "thinking_extended": ("Thinking - Extended", "thinking", "extended", False, None),
    "thinking_heavy": ("Thinking - Heavy", "thinking", "heavy", False, None),
    "instant": ("Instant", "instant", None, False, None),
    "instant_auto_switch": (
        "Instant - Auto-switch to Thinking Enabled",
        "instant",
        None,
        True,
        None,
    ),
    "deep_research": ("Deep Research", "pro", None, False, "deep_research"),
}


@pytest.fixture
def config(oraculum_home: Path) -> Config:
    return load_config().config


def test_registry_matches_reference_table() -> None:
    assert list(PRESET_IDS) == list(EXPECTED)
    for preset in PRESETS:
        assert (
            preset.label,
            preset.model_family,
            preset.effort,
            preset.auto_switch_to_thinking,
            preset.tool,
        ) == EXPECTED[preset.id]


def _variants(preset_id: str) -> list[str]:
    label = PRESETS_BY_ID[preset_id].label
    return [
        preset_id,
        preset_id.upper(),
        preset_id.replace("_", "-"),
        preset_id.replace("_", " "),
        f"  {preset_id.replace('_', ' ').title()}  ",
        label,
        label.lower(),
        label.upper(),
    ]


@pytest.mark.parametrize("preset_id", list(EXPECTED))
def test_every_preset_resolves_from_id_variants_and_label(preset_id: str) -> None:
    for variant in _variants(preset_id):
        assert normalize_preset(variant) == preset_id, variant


@pytest.mark.parametrize("preset_id", list(EXPECTED))
def test_every_preset_resolves_to_its_selection(preset_id: str, config: Config) -> None:
    label, family, effort, auto_switch, tool = EXPECTED[preset_id]
    selection = resolve_selection("chatgpt", preset_id.replace("_", "-"), config)
    assert selection == Selection(
        provider="chatgpt",
        preset=preset_id,
        model_family=family,
        effort=effort,
        auto_switch_to_thinking=auto_switch,
        tool=tool,
        label=label,
    )


def test_reference_spellings() -> None:
    for spelling in ("PRO_EXTENDED", "pro-extended", "Pro - Extended", "pro extended"):
        assert normalize_preset(spelling) == "pro_extended"
    assert normalize_preset("Pro-standard") == "pro_standard"
    assert normalize_preset("Instant Auto-switch to Thinking Enabled") == "instant_auto_switch"
    assert normalize_key("Instant - Auto-switch to Thinking Enabled") == (
        "instant auto switch to thinking enabled"
    )
    assert normalize_key("  x.ai ") == "x ai"


@pytest.mark.parametrize("value", ["pro", "pro_max", "thinking", "gpt-5", "", "   ", "heavy"])
def test_unknown_preset_is_invalid_preset_with_allowed_ids(value: str) -> None:
    with pytest.raises(OracleError) as caught:
        normalize_preset(value)
    error = caught.value
    assert error.code == "invalid_preset"
    assert error.rejected_value == value
    assert error.allowed_values == list(EXPECTED)
    assert error.exit_code == ExitCode.INVALID_INPUT
    assert error.message == (
        f"Unknown preset: {value}. Use one of the canonical ids ("
        + ", ".join(EXPECTED)
        + ") or a matching preset label."
    )


@pytest.mark.parametrize("value", [None, 3, ["pro_extended"]])
def test_non_string_preset_is_invalid_preset(value: object) -> None:
    with pytest.raises(OracleError) as caught:
        normalize_preset(value)
    assert caught.value.code == "invalid_preset"


@pytest.mark.parametrize("value", ["heavy", "grok heavy", "grok-heavy", "Grok Heavy", "GROK_HEAVY"])
def test_grok_mode_aliases(value: str, config: Config) -> None:
    assert normalize_grok_mode(value) == "heavy"
    selection = resolve_selection("grok", value, config)
    assert selection.to_json_dict() == {
        "provider": "grok",
        "mode": "heavy",
        "modelFamily": "grok",
        "effort": "heavy",
        "autoSwitchToThinking": False,
        "tool": None,
        "label": "Grok Heavy",
    }


@pytest.mark.parametrize("preset", ["thinking_heavy", "Pro - Extended", "deep_research"])
def test_grok_rejects_chatgpt_presets(preset: str, config: Config) -> None:
    with pytest.raises(OracleError) as caught:
        resolve_selection("grok", preset, config)
    assert caught.value.code == "invalid_preset"
    assert caught.value.allowed_values == ["heavy"]
    assert "ChatGPT preset" in caught.value.message


def test_grok_rejects_unknown_mode(config: Config) -> None:
    with pytest.raises(OracleError) as caught:
        resolve_selection("xai", "light", config)
    assert caught.value.code == "invalid_preset"
    assert caught.value.rejected_value == "light"


def test_chatgpt_rejects_grok_mode_and_points_at_grok(config: Config) -> None:
    with pytest.raises(OracleError) as caught:
        resolve_selection("chatgpt", "grok heavy", config)
    assert caught.value.code == "invalid_preset"
    assert caught.value.suggested_next_step is not None
    assert "grok" in caught.value.suggested_next_step


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("chatgpt", "chatgpt"),
        ("ChatGPT", "chatgpt"),
        ("chat-gpt", "chatgpt"),
        ("Chat GPT", "chatgpt"),
        ("openai", "chatgpt"),
        ("OpenAI", "chatgpt"),
        ("grok", "grok"),
        ("xai", "grok"),
        ("x.ai", "grok"),
        ("X.AI", "grok"),
    ],
)
def test_provider_aliases(value: str, expected: str) -> None:
    assert normalize_provider(value) == expected


@pytest.mark.parametrize("value", ["claude", "", "gpt", None])
def test_unknown_provider(value: object) -> None:
    with pytest.raises(OracleError) as caught:
        normalize_provider(value)
    assert caught.value.code == "invalid_provider"
    assert caught.value.allowed_values == ["chatgpt", "grok", "gemini"]
    assert caught.value.rejected_value == value


def test_defaults_come_from_config(oraculum_home: Path) -> None:
    builtin = load_config().config
    assert resolve_selection(None, None, builtin).preset == "pro_extended"
    tuned = load_config(
        overrides={"defaults": {"provider": "x.ai", "preset": "thinking light"}}
    ).config
    assert resolve_selection(None, None, tuned).mode == "heavy"
    # An explicit provider overrides the configured one; the configured preset still applies.
    assert resolve_selection("openai", None, tuned).preset == "thinking_light"


def test_alias_collision_raises_at_build() -> None:
    with pytest.raises(ValueError, match="claimed by both"):
        build_alias_table([("Pro - Max", "a"), ("pro_max", "b")])
    assert build_alias_table([("Pro - Max", "a"), ("pro_max", "a")]) == {"pro max": "a"}


def test_selection_json_round_trip(config: Config) -> None:
    for preset_id in PRESET_IDS:
        selection = resolve_selection("chatgpt", preset_id, config)
        data = selection.to_json_dict()
        assert data["preset"] == preset_id and "mode" not in data
        assert Selection.from_json_dict(data) == selection
    grok = resolve_selection("grok", None, config)
    assert Selection.from_json_dict(grok.to_json_dict()) == grok


def test_selection_is_frozen(config: Config) -> None:
    selection = resolve_selection(None, "instant", config)
    with pytest.raises(AttributeError):
        selection.preset = "pro_standard"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("typo", "nearest"),
    [("pro_extnded", "pro_extended"), ("Thinkng Heavy", "thinking_heavy"), ("instnt", "instant")],
)
def test_a_preset_typo_suggests_the_nearest_id(typo: str, nearest: str) -> None:
    """Issue 38 §11: the next step names the id the typo was nearest to."""
    with pytest.raises(OracleError) as caught:
        normalize_preset(typo)
    assert caught.value.suggested_next_step.startswith(f"Did you mean {nearest}?")


def test_a_preset_nothing_like_any_id_suggests_none() -> None:
    with pytest.raises(OracleError) as caught:
        normalize_preset("zzzz")
    assert "Did you mean" not in (caught.value.suggested_next_step or "")
