"""What one MCP tool is to the server: its function, its title and its behaviour hints.

Every tool family (the oracle's own tools, browser_fetch, managed processes, the scheduler,
subagents…) is a module of :mod:`oraculum.mcp.families` with a ``TOOLS`` table of these, so a
family is added without editing the server. Most tools' hints are one of the shared behaviours in
:mod:`oraculum.mcp.schemas` (``READ_ONLY_HINTS``, ``STOP_HINTS``, ``OUTWARD_HINTS``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcp.types import ToolAnnotations

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["ToolSpec", "register_tools"]


@dataclass(frozen=True)
class ToolSpec:
    """One tool: an async function ``(…arguments, ctx) -> CallToolResult`` whose docstring is
    its description, with a human title and its behaviour hints."""

    function: Callable[..., Any]
    title: str
    hints: ToolAnnotations

    @property
    def name(self) -> str:
        return self.function.__name__

    @property
    def description(self) -> str:
        return " ".join((self.function.__doc__ or "").split())


def register_tools(server: MCPServer, specs: Iterable[ToolSpec]) -> None:
    """Add each tool to ``server`` with its name, title, description and hints."""
    for spec in specs:
        server.add_tool(
            spec.function,
            name=spec.name,
            title=spec.title,
            description=spec.description,
            annotations=spec.hints,
        )
