"""Tool families beside the oracle's: each module of this package is one family.

A family module defines:

- ``FAMILY: str`` — its name, which capability profiles refer to (``"fetch"``, ``"processes"``…);
- ``TOOLS: tuple[ToolSpec, ...]`` — its tools (see :class:`oraculum.mcp.toolkit.ToolSpec`);
  a tool reaches the per-process server state as ``ctx.lifespan_context`` (an
  :class:`oraculum.mcp.server.OracleMcp`: project root, session id, job store);
- optionally ``def shutdown(state) -> None`` — called once when the server stops (its session
  ends), to stop what the family started for that session.

Modules are found by listing the package, so a new family is a new file and nothing else.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

__all__ = ["council", "family_modules"]  # council: the server renders its results too


def family_modules() -> tuple[ModuleType, ...]:
    """Every family module, imported, in name order."""
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))
    return tuple(importlib.import_module(f"{__name__}.{name}") for name in names)
