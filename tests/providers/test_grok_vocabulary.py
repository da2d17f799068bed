"""One vocabulary for Grok too: every label, selector and text signal the Grok driver reads
lives in `providers/grok/vocabulary.py`, and nothing there is dead (the ChatGPT check's rules)."""

from __future__ import annotations

from pathlib import Path

import oraculum
from oraculum.providers.grok import vocabulary

from .test_chatgpt_vocabulary import (
    repeated_labels,
    ui_strings_outside_vocabulary,
    unused_vocabulary_names,
)

PACKAGE = Path(oraculum.__file__).parent
DRIVER = PACKAGE / "providers" / "grok"
DRIVER_MODULES = sorted(p for p in DRIVER.glob("*.py") if p.name != "vocabulary.py")
CAPTURE = PACKAGE / "capture" / "own_capture.py"
# ARIA role names (and the tag `button`) are the platform's, not Grok's: used where they are.
ROLES = frozenset({"button", "link", "menuitem", "menuitemradio", "option", "textbox"})


def _labels() -> set[str]:
    labels: set[str] = set()
    for name, value in vars(vocabulary).items():
        if not name.isupper():
            continue
        items = (value,) if isinstance(value, str) else value
        if isinstance(items, tuple):
            labels |= {v for v in items if isinstance(v, str) and len(v) >= 4}
    return labels - ROLES


def test_no_driver_module_quotes_a_ui_string() -> None:
    problems = {
        path.name: found
        for path in [*DRIVER_MODULES, CAPTURE]
        if (found := ui_strings_outside_vocabulary(path.read_text(encoding="utf-8")))
    }
    assert problems == {}


def test_no_driver_module_or_script_repeats_a_vocabulary_label() -> None:
    labels = _labels()
    assert "Ask Grok anything" in labels and "Stop model response" in labels
    assert repeated_labels(DRIVER, DRIVER_MODULES, labels) == []


def test_every_vocabulary_name_is_used() -> None:
    assert unused_vocabulary_names(vocabulary, DRIVER) == []
