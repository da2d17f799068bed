"""`presets`: the model selections a job can ask for (`oraculum presets`, `oracle_presets`)."""

from __future__ import annotations

from typing import Any

from oraculum.core.presets import GROK_MODES_LIST, PRESETS, chatgpt_selection, grok_selection


def presets() -> list[dict[str, Any]]:
    """One row per ChatGPT preset and Grok mode: provider, id, label, family, effort, tool."""
    chatgpt = [chatgpt_selection(preset.id) for preset in PRESETS]
    grok = [grok_selection(mode.id) for mode in GROK_MODES_LIST]
    rows = []
    for selection in (*chatgpt, *grok):
        row = selection.to_json_dict()
        row["id"] = row.pop("preset", None) or row.pop("mode")
        rows.append(row)
    return rows
