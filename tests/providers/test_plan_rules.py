"""Issue 38 §7, the pure decision: which locked picker entries refuse which preset, and what
the refusal names."""

from __future__ import annotations

import pytest

from oraculum.providers.chatgpt import vocabulary as vocab
from oraculum.providers.chatgpt.plans import refusal


@pytest.mark.parametrize(
    ("family", "effort", "locked", "wanted", "plan"),
    [
        ("pro", "extended", ["Pro"], "Pro", "ChatGPT Pro"),
        ("pro", "standard", ["GPT-5.6 Pro"], "Pro", "ChatGPT Pro"),  # a family prefix
        ("thinking", "heavy", ["High", "Extra High", "Pro"], "Extra High", "ChatGPT Plus"),
        ("thinking", "extended", ["Thinking"], "High", "ChatGPT Plus"),  # the chips' family row
    ],
)
def test_a_locked_entry_refuses_its_preset(
    family: str, effort: str, locked: list[str], wanted: str, plan: str
) -> None:
    refused = refusal(family, effort, "the_preset", locked)
    assert refused is not None and refused.code == "model_not_in_plan"
    assert refused.details == {
        "preset": "the_preset",
        "wanted": wanted,
        "plan": plan,
        "locked": locked,
    }
    assert "the_preset" in refused.message and plan in refused.message
    assert "Nothing was sent" in refused.message and not refused.retryable


@pytest.mark.parametrize(
    ("family", "effort", "locked"),
    [
        ("thinking", "extended", ["Extra High", "Pro"]),  # "Extra High" is not "High"
        ("thinking", "standard", ["High", "Extra High", "Pro"]),
        ("instant", None, ["Pro"]),
        ("pro", "extended", []),
        ("pro", "extended", ["Pro Extended options"]),  # another entry, not the Pro stop
    ],
)
def test_what_is_not_locked_is_not_refused(
    family: str, effort: str | None, locked: list[str]
) -> None:
    assert refusal(family, effort, "p", locked) is None


@pytest.mark.parametrize(
    ("shown", "family", "effort"), [("Sehr hoch", "thinking", "heavy"), ("专业", "pro", "extended")]
)
def test_a_locked_entry_in_another_language_refuses_its_preset(
    shown: str, family: str, effort: str
) -> None:
    refused = refusal(family, effort, "the_preset", [shown])
    assert refused is not None and refused.details["locked"] == [shown]


def test_the_upgrade_control_is_known_in_every_ui_language() -> None:
    """An upgrade control is matched in each locale table's spelling (issue 42 §2)."""
    for code, table in vocab.LOCALES.tables.items():
        assert table.get("upgrade"), code
        for spelling in table["upgrade"]:
            assert vocab.UPGRADE_LABEL.match(spelling), (code, spelling)
    assert not vocab.UPGRADE_LABEL.match("Pro Extended")
