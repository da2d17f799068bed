"""How a caller names a provider's model: one table of choices per provider (ChatGPT's
presets, Grok's modes), each read through one normaliser and one alias table.

Users and agents type ids and labels in many spellings, so a lookup normalises case and
separators first; a table is built at import and refuses ambiguous aliases, so an entry that
collides with another fails loudly instead of silently shadowing it. A table is a fact of its
provider's registry entry (`core.providers`); `core.presets` resolves a caller's words with it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["Choice", "SelectionTable", "build_alias_table", "did_you_mean", "normalize_key"]

_NON_WORD = re.compile(r"[\W_]+")


def normalize_key(value: str) -> str:
    """Lower-case; every run of `_`, `-`, punctuation or whitespace becomes one space."""
    return _NON_WORD.sub(" ", value.strip().lower()).strip()


def build_alias_table(entries: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Map normalised alias -> canonical id; two ids claiming one alias is a bug, so raise."""
    table: dict[str, str] = {}
    for alias, canonical in entries:
        key = normalize_key(alias)
        if not key:
            raise ValueError(f"alias {alias!r} for {canonical!r} normalises to nothing")
        owner = table.setdefault(key, canonical)
        if owner != canonical:
            raise ValueError(f"alias {alias!r} is claimed by both {owner!r} and {canonical!r}")
    return table


def did_you_mean(value: Any, choices: Iterable[str]) -> str:
    """` Did you mean x?` for the choice nearest a mistyped ``value`` (empty: none is near)."""
    if not isinstance(value, str):
        return ""
    near = difflib.get_close_matches(normalize_key(value), list(choices), n=1, cutoff=0.6)
    return f" Did you mean {near[0]}?" if near else ""


@dataclass(frozen=True)
class Choice:
    """One model a provider's UI offers (a ChatGPT preset or composer tool, a Grok mode)."""

    id: str
    label: str
    model_family: str
    effort: str | None
    aliases: tuple[str, ...] = ()
    auto_switch_to_thinking: bool = False
    tool: str | None = None


@dataclass(frozen=True)
class SelectionTable:
    """A provider's model choices, and how its refusals are worded.

    ``key`` is the field a job's selection names the choice in (job.json keeps ChatGPT's
    ``preset`` and Grok's ``mode``); ``default_key`` the `defaults` config attribute holding the
    configured default (None: the first choice)."""

    key: Literal["preset", "mode"]
    choices: tuple[Choice, ...]
    default_key: str | None = None
    noun: str = "mode"
    unknown: str = "Unknown mode"  # "<unknown>: <value>. <use>"
    use: str = "Use one of ({ids})."
    next_step: str = "Run `oraculum presets` to list every provider's choices."
    aliases: Mapping[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        table = build_alias_table(
            (alias, c.id) for c in self.choices for alias in (c.id, c.label, *c.aliases)
        )
        object.__setattr__(self, "aliases", table)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.choices)

    def choice(self, choice_id: str) -> Choice:
        return next(c for c in self.choices if c.id == choice_id)

    def canonical(self, value: Any) -> str | None:
        """The id ``value`` names (id, label or alias, any spelling), or None."""
        return self.aliases.get(normalize_key(value)) if isinstance(value, str) else None

    def default(self, defaults: Any) -> str:
        """The configured default choice (the config's `defaults` section), else the first."""
        return str(getattr(defaults, self.default_key)) if self.default_key else self.ids[0]
