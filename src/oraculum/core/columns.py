"""Rows as plain text columns: a table any reader (a terminal, a pipe, an agent) reads alike."""

from __future__ import annotations

__all__ = ["columns"]


def columns(rows: list[list[str]]) -> list[str]:
    """Rows as plain text lines in left-aligned columns two spaces apart (no rich: a command
    whose output is a table need not load it)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))] if rows else []
    return [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    ]
