"""The scheduler: durable delayed, repeating and cron work that wakes the owning session.

APScheduler 3 with its SQLAlchemy job store (SQLite in the state dir by default) runs in one
detached runner process per user (docs/scheduler.md).
"""

# The modules other layers may import; the rest of the package is internal to it.
__all__ = [
    "control",
    "execute",
    "hook",
    "runner",
    "service",
    "store",
    "triggers",
    "validation",
    "wake",
]
