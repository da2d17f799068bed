"""Managed processes: long-running local processes owned by a session (docs/processes.md)."""

# The modules other layers may import; the rest of the package is internal to it.
__all__ = [
    "client",
    "journal",
    "limits",
    "lineage",
    "manager",
    "results",
    "run",
    "supervisor",
    "tail",
]
