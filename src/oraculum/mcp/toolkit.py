"""What one MCP tool is to the server: its function, its title and its behaviour hints.

The oracle tools live in :mod:`oraculum.mcp.server`; every other tool family (browser_fetch,
managed processes, the scheduler, subagents…) is a module of :mod:`oraculum.mcp.families`, so a
family is added without editing the server.
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
