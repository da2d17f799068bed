"""UI languages: one table per locale for a provider's vocabulary, chosen by the page's language.

A table maps a concept (a control, a state word, a model term) to its spellings in one
language. A provider's vocabulary module loads its tables once (`Locales`) and derives what the
driver matches from them. The page's `html lang` picks the table whose spellings come first;
every other locale's spellings follow, because labels drift within one language too (German
"Extra hoch" / "Sehr hoch") and a page may announce one language while showing another. Adding a
language is adding one table module; nothing else names a label.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = ["LocaleTable", "Locales", "alternatives", "exact_any", "load_locales", "prefix_any"]

LocaleTable = Mapping[str, tuple[str, ...]]

DEFAULT_LOCALE = "en"


def _unique(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


@dataclass(frozen=True)
class Locales:
    """A provider's locale tables, by locale code ("en", "de", "zh-CN"); the default first."""

    tables: Mapping[str, LocaleTable]

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(self.tables)

    def resolve(self, html_lang: str | None) -> str | None:
        """The table a page's `lang` names: exactly ("zh-CN"), else by its language ("de-DE" is
        "de", "zh-Hans" is "zh-CN"); None when no table serves it (match every spelling)."""
        tag = (html_lang or "").strip().replace("_", "-").lower()
        if not tag:
            return None
        by_tag = {code.lower(): code for code in self.tables}
        if tag in by_tag:
            return by_tag[tag]
        language = tag.split("-")[0]
        return next((code for code in self.tables if code.lower().split("-")[0] == language), None)

    def spellings(self, concept: str, locale: str | None = None) -> tuple[str, ...]:
        """Every known spelling of ``concept``: ``locale``'s first (when it has any), then the
        default locale's, then every other's."""
        order = [locale] if locale is not None and locale in self.tables else []
        order += [DEFAULT_LOCALE, *self.tables]
        return _unique(s for code in order for s in self.tables.get(code, {}).get(concept, ()))

    def terms(self, concepts: Iterable[str], locale: str | None = None) -> dict[str, str]:
        """Spelling -> concept for ``concepts`` (a localized model or tier name to the name the
        driver reasons with); ``locale``'s spelling wins where two languages share one."""
        found: dict[str, str] = {}
        for concept in concepts:
            for spelling in self.spellings(concept, locale):
                found.setdefault(spelling, concept)
        return found

    def missing(self, locale: str) -> tuple[str, ...]:
        """Concepts of the default table that ``locale``'s table does not spell (matched there
        only through other languages' spellings)."""
        own = self.tables.get(locale, {})
        return tuple(c for c in self.tables[DEFAULT_LOCALE] if not own.get(c))


def load_locales(package: str, codes: Iterable[str]) -> Locales:
    """The tables of ``package``'s locale modules (`de`, `zh_cn` for "zh-CN"), each a `LABELS`
    mapping; the default locale must be among them."""
    tables: dict[str, LocaleTable] = {}
    for code in codes:
        module = importlib.import_module(f"{package}.{code.replace('-', '_').lower()}")
        tables[code] = module.LABELS
    if DEFAULT_LOCALE not in tables:
        raise ValueError(f"{package} has no {DEFAULT_LOCALE!r} table")
    return Locales(tables)


def alternatives(names: Iterable[str]) -> str:
    """A regular expression (no group) matching any of ``names`` literally."""
    return "|".join(map(re.escape, names))


def exact_any(names: Iterable[str], flags: int = 0) -> re.Pattern[str]:
    """A name matcher for any of ``names``, each matched whole."""
    return re.compile(rf"^(?:{alternatives(names)})$", flags)


def prefix_any(names: Iterable[str], flags: int = 0) -> re.Pattern[str]:
    """A name matcher for a name starting with any of ``names``."""
    return re.compile(rf"^(?:{alternatives(names)})", flags)
