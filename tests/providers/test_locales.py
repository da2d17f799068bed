"""UI languages (issue 42 §2): one table per locale, chosen by the page's `html lang`, every other
language's spellings matched after it; the driver reads localized model names in its own terms."""

from __future__ import annotations

import pytest

from oraculum.providers.chatgpt import vocabulary as vocab
from oraculum.providers.chatgpt.labels import base_name, match_label
from oraculum.providers.chatgpt.pickers import OPENER_NAME, parse_power, power_direction
from oraculum.providers.chatgpt.probe import language_finding
from oraculum.providers.locales import Locales

TABLES = Locales({"en": {"send": ("Send",), "stop": ("Stop",)}, "de": {"send": ("Senden",)},
                  "zh-CN": {"send": ("发送",)}})  # fmt: skip


@pytest.mark.parametrize(
    ("lang", "code"),
    [("de-DE", "de"), ("de", "de"), ("zh-CN", "zh-CN"), ("zh-Hans", "zh-CN"), ("zh_cn", "zh-CN"),
     ("EN-us", "en"), ("pt-BR", None), ("", None), (None, None)],
)  # fmt: skip
def test_the_page_language_picks_a_table(lang: str | None, code: str | None) -> None:
    assert TABLES.resolve(lang) == code


def test_the_page_language_comes_first_and_every_other_spelling_follows() -> None:
    assert TABLES.spellings("send", "de") == ("Senden", "Send", "发送")
    assert TABLES.spellings("send") == ("Send", "Senden", "发送")
    assert TABLES.spellings("send", "pt") == ("Send", "Senden", "发送")


def test_a_locale_reports_the_concepts_it_does_not_spell() -> None:
    assert TABLES.missing("de") == ("stop",)
    assert TABLES.missing("en") == ()


def test_chatgpt_knows_the_required_languages() -> None:
    assert set(vocab.LOCALES.codes) >= {"en", "de", "fr", "es", "ja", "zh-CN"}
    for code in vocab.LOCALES.codes:
        for concept in ("composer", "send", "add_files", "upload_entry", "copy", "deep_research"):
            assert vocab.LOCALES.tables[code].get(concept), (code, concept)


@pytest.mark.parametrize(
    ("shown", "term"),
    [("Mittel", "Medium"), ("Sehr hoch", "Extra High"), ("Extra hoch", "Extra High"),
     ("Pro Erweitert", "Pro Extended"), ("中程度 5–30秒", "Medium 5–30秒"),
     ("Muy alta", "Extra High"),
     ("6 Moyen", "Medium"), ("极速 ✓", "Instant"), ("Hochladen", "Hochladen")],
)  # fmt: skip
def test_a_localized_model_name_reads_as_the_drivers_term(shown: str, term: str) -> None:
    assert base_name(shown) == term


def test_localized_picker_entries_match_and_stay_unambiguous() -> None:
    entries = ["Sofort", "Mittel", "Hoch", "Sehr hoch", "Pro"]
    assert match_label(entries, "High").index == 2
    assert match_label(entries, "Extra High").index == 3
    assert OPENER_NAME.match("Mittel") and OPENER_NAME.match("Denkaufwand")


@pytest.mark.parametrize(
    "description",
    [
        "Sehr hoch, 4 von 5.",
        "Extra High, 4 of 5. Use Left and Right",
        "超高，4 / 5",
        "Muy alta, 4 de 5.",
    ],
)
def test_the_power_reading_is_language_neutral(description: str) -> None:
    reading = parse_power(description)
    assert reading is not None and reading[1:] == (4, 5)
    assert power_direction(reading[0], 4, 5, "Medium") == -1


def test_doctor_names_the_table_and_the_labels_it_does_not_spell() -> None:
    seen = {
        "composer": ("Mit ChatGPT chatten", ("composer",)),
        "send": ("Send prompt", ("send",)),
        "model picker": ("6 Sehr hoch", (*vocab.COMPACT_TIERS, "model_opener")),
    }
    assert language_finding("de-DE", seen) == (
        'de (html lang "de-DE"); not spelt as de spells them: send "Send prompt"',
        True,
    )
    assert language_finding("en", {"send": ("Send", ("send",))}) == ('en (html lang "en")', True)
    found, ok = language_finding("pt-BR", seen)
    assert not ok and found.startswith('html lang "pt-BR": no table for it')
    assert language_finding("", {})[1] is False


def test_grok_reads_its_labels_through_the_same_tables() -> None:
    from oraculum.providers.grok import vocabulary as grok

    assert grok.LOCALES.codes == ("en",)  # no public source spells Grok in another language
    assert grok.COMPOSER_LABELS == grok.LOCALES.spellings("composer") == ("Ask Grok anything",)
    assert grok.UPLOAD_ENTRY.match("Upload a file") and "Not interested" in grok.DISMISS_LABELS
    assert grok.LOCALES.resolve("de-DE") is None  # a German Grok page: every spelling is tried


@pytest.mark.parametrize(
    ("dismiss", "never"),
    [("Nicht jetzt", "Ausprobieren"), ("Pas maintenant", "Tout accepter"),
     ("Ahora no", "Aceptar todo"), ("今はしない", "アップグレード"), ("以后再说", "升级")],
)  # fmt: skip
def test_the_obstacle_layer_dismisses_and_refuses_in_every_language(
    dismiss: str, never: str
) -> None:
    policy = vocab.obstacle_vocabulary().policy
    assert policy.dismisses(dismiss) and not policy.forbids(dismiss)
    assert policy.forbids(never) and not policy.dismisses(never)
