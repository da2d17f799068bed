"""Jobs: model and transitions, the store, locks, leases, admission and workers."""

# The modules other layers may import; the rest of the package is internal to it.
__all__ = [
    "admission",
    "cancel",
    "comparison",
    "councils",
    "duplicates",
    "ids",
    "indexes",
    "leases",
    "leftovers",
    "locks",
    "model",
    "process",
    "reconcile",
    "retention",
    "rules",
    "runtime",
    "store",
    "transitions",
]
