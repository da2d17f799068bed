"""One vocabulary for Grok and Gemini too: every label, selector and text signal their drivers
read lives in `providers/<site>/vocabulary.py`, and nothing there is dead (the ChatGPT check's
rules, `test_chatgpt_vocabulary`), one check over both."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

import oraculum
from oraculum.providers.gemini import vocabulary as gemini_vocabulary
from oraculum.providers.grok import vocabulary as grok_vocabulary

from .test_chatgpt_vocabulary import (
    repeated_labels,
    ui_strings_outside_vocabulary,
    unused_vocabulary_names,
)

PACKAGE = Path(oraculum.__file__).parent
# ARIA role names (and the tag `button`) are the platform's, not a site's: used where they are.
ROLES = frozenset({"button", "link", "menuitem", "menuitemradio", "option", "textbox"})
# (vocabulary, its driver's folder, two labels it must hold, modules outside it that read it)
SITES = pytest.mark.parametrize(
    ("vocabulary", "driver", "known", "elsewhere"),
    [
        pytest.param(
            grok_vocabulary,
            PACKAGE / "providers" / "grok",
            ("Ask Grok anything", "Stop model response"),
            [PACKAGE / "capture" / "own_capture.py"],
            id="grok",
        ),
        pytest.param(
            gemini_vocabulary,
            PACKAGE / "providers" / "gemini",
            ("Upload & tools", "Stop response"),
            [],
            id="gemini",
        ),
    ],
)


def driver_modules(driver: Path) -> list[Path]:
    return sorted(p for p in driver.glob("*.py") if p.name != "vocabulary.py")


def labels_of(vocabulary: ModuleType) -> set[str]:
    labels: set[str] = set()
    for name, value in vars(vocabulary).items():
        if not name.isupper():
            continue
        items = (value,) if isinstance(value, str) else value
        if isinstance(items, tuple):
            labels |= {v for v in items if isinstance(v, str) and len(v) >= 4}
    return labels - ROLES


@SITES
def test_no_driver_module_quotes_a_ui_string(vocabulary, driver, known, elsewhere) -> None:
    problems = {
        path.name: found
        for path in [*driver_modules(driver), *elsewhere]
        if (found := ui_strings_outside_vocabulary(path.read_text(encoding="utf-8")))
    }
    assert problems == {}


@SITES
def test_no_driver_module_or_script_repeats_a_vocabulary_label(
    vocabulary, driver, known, elsewhere
) -> None:
    labels = labels_of(vocabulary)
    assert set(known) <= labels
    assert repeated_labels(driver, driver_modules(driver), labels) == []


@SITES
def test_every_vocabulary_name_is_used(vocabulary, driver, known, elsewhere) -> None:
    assert unused_vocabulary_names(vocabulary, driver) == []
