"""Tool families: each module of this package is one family (``oracle``: the oracle's own).

A family module defines:

- ``FAMILY: str`` — its name, which capability profiles refer to (``"fetch"``, ``"processes"``…);
- ``TOOLS: tuple[ToolSpec, ...]`` — its tools (see :class:`oraculum.mcp.toolkit.ToolSpec`);
  a tool reaches the per-process server state as ``ctx.lifespan_context`` (an
  :class:`oraculum.mcp.state.OracleMcp`: project root, session id, job store) and runs its
  operation with :func:`oraculum.mcp.state.run_operation`; no family imports the server;
- optionally ``def shutdown(state) -> None`` — called once when the server stops (its session
  ends), to stop what the family started for that session.

Modules are found by listing the package, so a new family is a new file and nothing else.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

__all__ = ["council", "family_modules", "oracle"]


def family_modules() -> tuple[ModuleType, ...]:
    """Every family module, imported, in name order."""
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))
    return tuple(importlib.import_module(f"{__name__}.{name}") for name in names)
