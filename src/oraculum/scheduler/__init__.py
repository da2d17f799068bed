"""The scheduler: durable delayed, repeating and cron work that wakes the owning session.

Schedules and their occurrences are JSON files in the state dir; fire times are worked out by
``cronsim`` and plain arithmetic; one detached runner process per user sleeps until the next one
(docs/scheduler.md).
"""

# The modules other layers may import; the rest of the package is internal to it.
__all__ = [
    "control",
    "cron",
    "doorbell",
    "execute",
    "hook",
    "runner",
    "service",
    "store",
    "triggers",
    "validation",
    "wake",
]
