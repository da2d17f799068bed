"""What every operation returns: a frozen result that both surfaces render.

A service operation returns a typed result, not a loose dict. The CLI prints ``to_json()`` in
JSON mode (its documented shape, camelCase keys) and ``text("cli")`` (or a richer rendering of
the same fields) otherwise; the MCP server shows ``text("mcp")`` and the same data as
structured content. The wording lives once, on the result, and names each surface's commands
through :func:`oraculum.core.surface.for_surface`.
"""

from __future__ import annotations

from typing import Any, Protocol

from oraculum.core.surface import Surface

__all__ = ["ServiceResult", "plain", "yes_no"]


class ServiceResult(Protocol):
    def to_json(self) -> dict[str, Any]:
        """The result's documented JSON shape (what `--json` prints)."""
        ...

    def text(self, surface: Surface) -> str:
        """The result in words for a reader of ``surface``."""
        ...


def yes_no(value: object) -> str:
    return "yes" if value else "no"


def plain(value: object) -> str:
    """A value as a reader writes it: yes/no, a comma-separated list, ``name: value`` pairs
    (the empty ones left out), never Python's repr."""
    if isinstance(value, bool):
        return yes_no(value)
    if isinstance(value, list | tuple):
        return ", ".join(plain(item) for item in value) or "none"
    if isinstance(value, dict):
        pairs = [
            f"{key} {plain(item)}" for key, item in value.items() if item not in ([], {}, None)
        ]
        return "; ".join(pairs) or "none"
    return str(value)
