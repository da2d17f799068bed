"""`presets`: the model selections a job can ask for (`oraculum presets`, `oracle_presets`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from oraculum.core import providers
from oraculum.core.presets import Selection, selection_of
from oraculum.core.surface import Surface

__all__ = ["PresetsResult", "preset_row", "presets"]

# How each surface passes a preset id to a new job.
_PASS_ID = {
    "cli": "pass the id as `oraculum submit --preset`",
    "mcp": "pass the id as oracle_submit's preset",
}


def preset_row(selection: Selection) -> dict[str, Any]:
    """One preset's documented row: the selection's JSON with its preset or mode as ``id``."""
    row = selection.to_json_dict()
    row["id"] = row.pop("preset", None) or row.pop("mode")
    return row


@dataclass(frozen=True)
class PresetsResult:
    """Every ChatGPT preset and Grok mode a job can ask for, in the registry's order."""

    selections: tuple[Selection, ...]

    @property
    def rows(self) -> list[dict[str, Any]]:
        """The rows `oraculum --json presets` prints (a list) and the resource serves."""
        return [preset_row(selection) for selection in self.selections]

    def to_json(self) -> dict[str, Any]:
        return {"presets": self.rows}

    def text(self, surface: Surface) -> str:
        lines = [f"Presets ({_PASS_ID[surface]}; omit it for the default):"]
        for s in self.selections:
            details = ", ".join(v for v in (s.model_family, s.effort, s.tool) if v)
            lines.append(f"- {s.provider} {s.preset or s.mode}: {s.label} ({details})")
        return "\n".join(lines)


def presets() -> PresetsResult:
    """One selection per choice of every provider's table (ChatGPT's presets, Grok's modes, in
    the registry's order): provider, id, label, family, effort, tool."""
    return PresetsResult(
        tuple(
            selection_of(spec.name, choice.id)
            for spec in providers.REGISTRY.values()
            if spec.selection is not None
            for choice in spec.selection.choices
        )
    )
