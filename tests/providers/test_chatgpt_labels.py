"""Which picker entry names a wanted model label, and which way a Power slider steps (pure)."""

from __future__ import annotations

import pytest

from oraculum.providers.chatgpt.labels import ambiguous, base_name, match_label, names_label
from oraculum.providers.chatgpt.pickers import passed_stop, power_direction


@pytest.mark.parametrize(
    ("name", "base"),
    [
        ("GPT-5.6 Thinking", "Thinking"),
        ("6 Pro", "Pro"),
        ("ChatGPT 5 Pro", "Pro"),
        ("GPT-4o Instant ✓", "Instant"),
        ("Extra High", "Extra High"),  # a prefix is a family or version, never another word
        ("Orion Medium", "Orion Medium"),
    ],
)
def test_base_name_drops_only_a_family_prefix(name: str, base: str) -> None:
    assert base_name(name) == base


@pytest.mark.parametrize(
    ("name", "wanted", "names"),
    [
        ("GPT-5.6 Thinking", "Thinking", True),
        ("Medium 5–30s", "Medium", True),
        ("Extra High", "High", False),
        ("Pro Extended", "Pro", False),
        ("GPT-5.6 Pro", "Pro", True),
        ("Orion Medium", "Medium", False),
    ],
)
def test_names_label(name: str, wanted: str, names: bool) -> None:
    assert names_label(name, wanted) is names


def test_an_exact_entry_wins_without_drift() -> None:
    match = match_label(["GPT-5.6 Thinking", "Thinking", "Pro"], "Thinking")
    assert (match.index, match.entry, match.drift) == (1, "Thinking", None)


def test_a_prefixed_entry_matches_when_it_is_the_only_one_and_names_the_drift() -> None:
    match = match_label(["GPT-5.6 Instant", "GPT-5.6 Thinking", "GPT-5.6 Pro"], "Thinking")
    assert match.index == 1
    assert match.drift == "'GPT-5.6 Thinking' read as 'Thinking'"


def test_two_prefixed_entries_are_ambiguous_and_refused_with_wanted_and_observed() -> None:
    entries = ["GPT-5.6 Thinking", "GPT-5.5 Thinking", "GPT-5.6 Pro"]
    match = match_label(entries, "Thinking")
    assert match.index is None and match.ambiguous
    error = ambiguous(match, entries)
    assert error.code == "model_entry_ambiguous"
    assert error.details == {"wanted": "Thinking", "observed": entries}
    assert "'GPT-5.6 Thinking', 'GPT-5.5 Thinking'" in error.message


def test_no_entry_names_the_label() -> None:
    match = match_label(["Orion Medium", "Orion High"], "Medium")
    assert match.index is None and not match.ambiguous and match.candidates == ()


@pytest.mark.parametrize(
    ("label", "index", "count", "target", "direction"),
    [
        ("Medium", 2, 5, "High", 1),
        ("Medium", 3, 6, "High", 1),  # an inserted stop shifts indexes, not the order
        ("Pro", 6, 6, "Medium", -1),
        ("Low", 2, 6, "Instant", -1),  # an unknown stop: by where the slider is
        ("Low", 2, 6, "Extra High", 1),
    ],
)
def test_power_direction_goes_by_label(
    label: str, index: int, count: int, target: str, direction: int
) -> None:
    assert power_direction(label, index, count, target) == direction


def test_passed_stop_says_the_target_is_not_on_the_slider() -> None:
    assert passed_stop("Pro", "Extra High", 1)
    assert not passed_stop("High", "Extra High", 1)
    assert not passed_stop("Low", "Medium", 1)  # unknown stops never prove anything
    assert passed_stop("Instant", "Medium", -1)
