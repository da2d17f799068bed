"""A caller's provider and model words, resolved through the registry's selection tables.

A preset (ChatGPT) or mode (Grok) is the only model selector a caller gives; each provider's
table (`ProviderSpec.selection`, built from `core.selection`) says what it offers and how a
refusal is worded. Nothing here branches on a provider's name: a new provider's table is
resolved, refused and persisted the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from oraculum.core import providers
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.providers import ProviderSpec
from oraculum.core.selection import (
    Choice,
    SelectionTable,
    build_alias_table,
    did_you_mean,
    normalize_key,
)

if TYPE_CHECKING:
    from oraculum.core.config import Config

__all__ = [
    "CHATGPT",
    "GROK",
    "GROK_MODE_IDS",
    "PRESETS",
    "PRESET_IDS",
    "Selection",
    "build_alias_table",
    "canonical_provider",
    "choice_ids",
    "did_you_mean",
    "normalize_choice",
    "normalize_key",
    "normalize_provider",
    "resolve_selection",
    "selection_of",
]

CHATGPT: Final = providers.CHATGPT.name
GROK: Final = providers.GROK.name

# ChatGPT's presets and Grok's modes by their old names (the config schema and tests use them).
PRESETS: Final[tuple[Choice, ...]] = providers.CHATGPT_PRESETS.choices
PRESET_IDS: Final[tuple[str, ...]] = providers.CHATGPT_PRESETS.ids
PRESETS_BY_ID: Final[Mapping[str, Choice]] = {c.id: c for c in PRESETS}
GROK_MODES_LIST: Final[tuple[Choice, ...]] = providers.GROK_MODES.choices
GROK_MODE_IDS: Final[tuple[str, ...]] = providers.GROK_MODES.ids
canonical_preset_id = providers.CHATGPT_PRESETS.canonical
canonical_grok_mode = providers.GROK_MODES.canonical


def canonical_provider(value: str) -> str | None:
    """The browser provider ``value`` names (the registry's aliases), or None."""
    return providers.canonical_name(value, dry_run=False)


def normalize_provider(value: Any) -> str:
    return providers.provider_spec(value, dry_run=False).name


def _table(spec: ProviderSpec) -> SelectionTable:
    if spec.selection is None:
        raise OracleError(
            ErrorCode.INVALID_PROVIDER,
            f"{spec.label} has no model to choose.",
            rejected_value=spec.name,
            allowed_values=[n for n, s in providers.REGISTRY.items() if s.selection is not None],
        )
    return spec.selection


def choice_ids() -> tuple[str, ...]:
    """Every id any provider's table offers, in the registry's order (what a surface lists)."""
    return tuple(
        choice_id
        for spec in providers.REGISTRY.values()
        if spec.selection is not None
        for choice_id in spec.selection.ids
    )


def _owner(spec: ProviderSpec, value: Any) -> ProviderSpec | None:
    """Another provider whose table has ``value`` (to point a caller at it)."""
    return next(
        (
            other
            for other in providers.REGISTRY.values()
            if other is not spec and other.selection and other.selection.canonical(value)
        ),
        None,
    )


def _unknown_choice(spec: ProviderSpec, value: Any, owner: ProviderSpec | None) -> OracleError:
    table = _table(spec)
    if owner is not None and owner.selection is not None:
        theirs = f"{value} is a {owner.label} {owner.selection.noun}"
        reason = f"{theirs}; {spec.label} has no such {table.noun}"
        step = f"{theirs}: choose provider {owner.name} for it."
    else:
        reason = f"{table.unknown}: {value}"
        guess = did_you_mean(value, table.ids)
        step = (guess.strip() + " " if guess else "") + table.next_step
    return OracleError(
        ErrorCode.INVALID_PRESET,
        f"{reason}. {table.use.format(ids=', '.join(table.ids))}",
        rejected_value=value,
        allowed_values=list(table.ids),
        suggested_next_step=step,
    )


def normalize_choice(provider: str, value: Any) -> str:
    """The canonical id of ``provider``'s choice ``value`` names, in any case or separator
    style; `invalid_preset` listing the ids otherwise."""
    spec = providers.provider_spec(provider)
    canonical = _table(spec).canonical(value)
    if canonical is None:
        raise _unknown_choice(spec, value, None)
    return canonical


def normalize_preset(value: Any) -> str:
    """The canonical ChatGPT preset id for an id or label in any case or separator style."""
    return normalize_choice(CHATGPT, value)


def normalize_grok_mode(value: Any) -> str:
    return normalize_choice(GROK, value)


@dataclass(frozen=True)
class Selection:
    """What a job asks the provider's UI for; persisted in the job and shown to the user.

    The choice's id sits in the field its provider's table names: ChatGPT selections carry
    ``preset``, Grok's ``mode``. Exactly one is set.
    """

    provider: str
    model_family: str
    label: str
    preset: str | None = None
    mode: str | None = None
    effort: str | None = None
    auto_switch_to_thinking: bool = False
    tool: str | None = None

    def to_json_dict(self) -> dict[str, Any]:
        key = _table(providers.provider_spec(self.provider)).key
        out: dict[str, Any] = {"provider": self.provider, key: getattr(self, key)}
        out.update(
            modelFamily=self.model_family,
            effort=self.effort,
            autoSwitchToThinking=self.auto_switch_to_thinking,
            tool=self.tool,
            label=self.label,
        )
        return out

    @classmethod
    def from_json_dict(cls, data: Mapping[str, Any]) -> Selection:
        """Rebuild a persisted selection from the registry, so a stored label cannot drift."""
        provider = normalize_provider(data.get("provider"))
        key = _table(providers.REGISTRY[provider]).key
        return selection_of(provider, normalize_choice(provider, data.get(key)))


def selection_of(provider: str, choice_id: str) -> Selection:
    """The selection of ``provider``'s choice ``choice_id`` (a canonical id)."""
    table = _table(providers.REGISTRY[provider])
    choice = table.choice(choice_id)
    return Selection(
        provider=provider,
        model_family=choice.model_family,
        label=choice.label,
        effort=choice.effort,
        auto_switch_to_thinking=choice.auto_switch_to_thinking,
        tool=choice.tool,
        **{table.key: choice.id},
    )


def resolve_selection(provider: str | None, preset: str | None, config: Config) -> Selection:
    """Resolve a caller's provider and preset (either may be None for the configured default).

    ``preset`` names a choice of the chosen provider's table; another provider's choice is
    refused rather than mapped (no Grok mode is equivalent to any ChatGPT preset), and the
    refusal names the provider that has it.
    """
    chosen = normalize_provider(provider) if provider is not None else config.defaults.provider
    spec = providers.REGISTRY[chosen]
    table = _table(spec)
    if preset is None:
        return selection_of(chosen, table.default(config.defaults))
    if table.canonical(preset) is None:
        raise _unknown_choice(spec, preset, _owner(spec, preset))
    return selection_of(chosen, normalize_choice(chosen, preset))
