"""Providers, ChatGPT presets and Grok modes, and how loose user input maps onto them.

A preset (ChatGPT) or mode (Grok) is the only model selector a caller gives. Users and agents
type ids and labels in many spellings, so every lookup goes through one normaliser and one alias
table per provider; the tables are built at import and refuse ambiguous aliases, so adding an
entry that collides with another fails loudly instead of silently shadowing it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from oraculum.core import providers
from oraculum.core.errors import OracleError

if TYPE_CHECKING:
    from oraculum.core.config import Config

CHATGPT: Final = providers.CHATGPT.name
GROK: Final = providers.GROK.name
PROVIDERS: Final[tuple[str, ...]] = providers.BROWSER_PROVIDERS
TOOLS: Final[tuple[str, ...]] = ("deep_research",)


@dataclass(frozen=True)
class Preset:
    """One ChatGPT model preset (or composer tool) as the web UI names it."""

    id: str
    label: str
    model_family: str
    effort: str | None
    auto_switch_to_thinking: bool = False
    tool: str | None = None


@dataclass(frozen=True)
class GrokMode:
    id: str
    label: str
    model_family: str
    effort: str
    aliases: tuple[str, ...] = ()


PRESETS: Final[tuple[Preset, ...]] = (
    Preset("pro_standard", "Pro - Standard", "pro", "standard"),
    Preset("pro_extended", "Pro - Extended", "pro", "extended"),
    Preset("thinking_light", "Thinking - Light", "thinking", "light"),
    Preset("thinking_standard", "Thinking - Standard", "thinking", "standard"),
    Preset("thinking_extended", "Thinking - Extended", "thinking", "extended"),
    Preset("thinking_heavy", "Thinking - Heavy", "thinking", "heavy"),
    Preset("instant", "Instant", "instant", None),
    Preset(
        "instant_auto_switch",
        "Instant - Auto-switch to Thinking Enabled",
        "instant",
        None,
        auto_switch_to_thinking=True,
    ),
    # Deep Research is a composer tool, not a model; "pro" is nominal and no effort is set.
    Preset("deep_research", "Deep Research", "pro", None, tool="deep_research"),
)
PRESET_IDS: Final[tuple[str, ...]] = tuple(p.id for p in PRESETS)
PRESETS_BY_ID: Final[Mapping[str, Preset]] = {p.id: p for p in PRESETS}

GROK_MODES_LIST: Final[tuple[GrokMode, ...]] = (
    GrokMode("heavy", "Grok Heavy", "grok", "heavy", aliases=("heavy", "grok heavy", "grok-heavy")),
)
GROK_MODE_IDS: Final[tuple[str, ...]] = tuple(m.id for m in GROK_MODES_LIST)
GROK_MODES_BY_ID: Final[Mapping[str, GrokMode]] = {m.id: m for m in GROK_MODES_LIST}

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


_PRESET_ALIASES: Final = build_alias_table(
    (alias, p.id) for p in PRESETS for alias in (p.id, p.label)
)
_GROK_MODE_ALIASES: Final = build_alias_table(
    (alias, m.id) for m in GROK_MODES_LIST for alias in (m.id, m.label, *m.aliases)
)


def canonical_preset_id(value: str) -> str | None:
    """The canonical ChatGPT preset id ``value`` names, or None."""
    return _PRESET_ALIASES.get(normalize_key(value))


def canonical_grok_mode(value: str) -> str | None:
    return _GROK_MODE_ALIASES.get(normalize_key(value))


def canonical_provider(value: str) -> str | None:
    """The browser provider ``value`` names (the registry's aliases), or None."""
    return providers.canonical_name(value, dry_run=False)


def did_you_mean(value: Any, choices: Iterable[str]) -> str:
    """` Did you mean x?` for the choice nearest a mistyped ``value`` (empty: none is near)."""
    if not isinstance(value, str):
        return ""
    near = difflib.get_close_matches(normalize_key(value), list(choices), n=1, cutoff=0.6)
    return f" Did you mean {near[0]}?" if near else ""


def _unknown_preset(value: Any) -> OracleError:
    ids = ", ".join(PRESET_IDS)
    guess = did_you_mean(value, PRESET_IDS)
    return OracleError(
        "invalid_preset",
        f"Unknown preset: {value}. "
        f"Use one of the canonical ids ({ids}) or a matching preset label.",
        rejected_value=value,
        allowed_values=list(PRESET_IDS),
        suggested_next_step=(guess.strip() + " " if guess else "")
        + "Run `oraculum presets` to list the presets.",
    )


def normalize_preset(value: Any) -> str:
    """The canonical ChatGPT preset id for an id or label in any case or separator style."""
    canonical = canonical_preset_id(value) if isinstance(value, str) else None
    if canonical is None:
        raise _unknown_preset(value)
    return canonical


def normalize_grok_mode(value: Any) -> str:
    canonical = canonical_grok_mode(value) if isinstance(value, str) else None
    if canonical is not None:
        return canonical
    is_chatgpt_preset = isinstance(value, str) and canonical_preset_id(value) is not None
    reason = (
        f"{value} is a ChatGPT preset; Grok has no such mode"
        if is_chatgpt_preset
        else f"Unknown Grok mode: {value}"
    )
    guess = "" if is_chatgpt_preset else did_you_mean(value, GROK_MODE_IDS)
    raise OracleError(
        "invalid_preset",
        f"{reason}. Use one of the Grok modes ({', '.join(GROK_MODE_IDS)}).",
        rejected_value=value,
        allowed_values=list(GROK_MODE_IDS),
        suggested_next_step=guess.strip()
        + (" " if guess else "")
        + "Omit the preset for Grok's default mode, or choose provider chatgpt.",
    )


def normalize_provider(value: Any) -> str:
    return providers.provider_spec(value, dry_run=False).name


@dataclass(frozen=True)
class Selection:
    """What a job asks the provider's UI for; persisted in the job and shown to the user.

    ChatGPT selections carry ``preset``; Grok selections carry ``mode``. Exactly one is set.
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
        out: dict[str, Any] = {"provider": self.provider}
        if self.provider == GROK:
            out["mode"] = self.mode
        else:
            out["preset"] = self.preset
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
        if provider == GROK:
            return grok_selection(normalize_grok_mode(data.get("mode")))
        return chatgpt_selection(normalize_preset(data.get("preset")))


def chatgpt_selection(preset_id: str) -> Selection:
    preset = PRESETS_BY_ID[preset_id]
    return Selection(
        provider=CHATGPT,
        preset=preset.id,
        model_family=preset.model_family,
        effort=preset.effort,
        auto_switch_to_thinking=preset.auto_switch_to_thinking,
        tool=preset.tool,
        label=preset.label,
    )


def grok_selection(mode_id: str) -> Selection:
    mode = GROK_MODES_BY_ID[mode_id]
    return Selection(
        provider=GROK,
        mode=mode.id,
        model_family=mode.model_family,
        effort=mode.effort,
        label=mode.label,
    )


def resolve_selection(provider: str | None, preset: str | None, config: Config) -> Selection:
    """Resolve a caller's provider and preset (either may be None for the configured default).

    For Grok, ``preset`` names the mode; ChatGPT presets are refused rather than mapped, because
    no Grok mode is equivalent to any of them.
    """
    chosen = normalize_provider(provider) if provider is not None else config.defaults.provider
    if chosen == GROK:
        mode = normalize_grok_mode(preset) if preset is not None else config.defaults.grok_mode
        return grok_selection(mode)
    if preset is not None and canonical_preset_id(preset) is None and canonical_grok_mode(preset):
        error = _unknown_preset(preset)
        error.suggested_next_step = f"{preset} is a Grok mode: choose provider grok for it."
        raise error
    preset_id = normalize_preset(preset) if preset is not None else config.defaults.preset
    return chatgpt_selection(preset_id)
