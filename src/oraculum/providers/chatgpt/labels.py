"""Which of a picker's entries names a wanted label (pure).

An entry names ``wanted`` exactly, or once its family prefix is dropped ("GPT-5.6 Thinking" is
"Thinking"), or followed by a description ("Medium 5–30s"). An exact entry wins; otherwise the
entry is taken only when it is the one entry that names the label — two are ambiguous, and the
driver refuses to guess between them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.providers.chatgpt import vocabulary as vocab

__all__ = ["LabelMatch", "ambiguous", "base_name", "match_label", "names_label", "unprefixed"]

_PREFIX = re.compile(rf"^(?:{vocab.MODEL_FAMILY_PREFIX})")
# What may follow a label without changing what it names ("Pro Extended" is not "Pro").
_OTHER_EFFORT = re.compile(r"^(?:Standard|Extended)\b")


# Longest first, so "Pro Erweitert" is "Pro Extended" before it is "Pro".
_TERMS = sorted(vocab.MODEL_TERMS.items(), key=lambda item: -len(item[0]))


def _plain(name: str) -> str:
    return name.strip().rstrip(vocab.CHECK_MARKS).strip()


def unprefixed(name: str) -> str:
    """``name`` without its check mark and its family or version prefix, as the page spells it."""
    return _PREFIX.sub("", _plain(name))


def base_name(name: str) -> str:
    """``name`` without its check mark and its family or version prefix, its leading model or
    tier name read in English (the driver's terms: "Mittel 5–30s" is "Medium 5–30s")."""
    base = unprefixed(name)
    for spelling, term in _TERMS:
        if base == spelling or base.startswith(spelling + " "):
            return term + base[len(spelling) :]
    return base


def names_label(name: str, wanted: str) -> bool:
    """Whether ``name`` names ``wanted``, prefix and description aside ("Extra High" is not
    "High": a prefix is a family or version, never another word)."""
    base = base_name(name)
    return base == wanted or (
        base.startswith(wanted + " ") and not _OTHER_EFFORT.match(base[len(wanted) + 1 :])
    )


@dataclass(frozen=True)
class LabelMatch:
    wanted: str
    index: int | None  # the entry to use, when exactly one names the label
    entry: str | None  # its name as the page shows it
    candidates: tuple[str, ...] = ()  # every entry that names it (several: ambiguous)

    @property
    def ambiguous(self) -> bool:
        return self.index is None and len(self.candidates) > 1

    @property
    def drift(self) -> str | None:
        """How the page names the label, when only a prefix made it match."""
        if self.entry is None or _PREFIX.sub("", _plain(self.entry)) == _plain(self.entry):
            return None
        return f"{_plain(self.entry)!r} read as {self.wanted!r}"


def match_label(entries: Sequence[str], wanted: str) -> LabelMatch:
    for index, entry in enumerate(entries):
        if _plain(entry) == wanted:
            return LabelMatch(wanted, index, entry, (entry,))
    naming = [i for i, entry in enumerate(entries) if names_label(entry, wanted)]
    candidates = tuple(entries[i] for i in naming)
    if len(naming) == 1:
        return LabelMatch(wanted, naming[0], entries[naming[0]], candidates)
    return LabelMatch(wanted, None, None, candidates)


def ambiguous(match: LabelMatch, entries: Sequence[str]) -> OracleError:
    shown = ", ".join(repr(e) for e in match.candidates)
    return OracleError(
        ErrorCode.MODEL_ENTRY_AMBIGUOUS,
        f"Several model entries name {match.wanted!r}: {shown}; oraculum does not guess which "
        "one is meant. Nothing was sent.",
        details={"wanted": match.wanted, "observed": list(entries)},
        suggested_next_step="ChatGPT lists several models under that name: choose one in "
        "ChatGPT as the account's model, or wait for oraculum to learn the new names.",
    )
