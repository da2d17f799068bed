"""Sessions and wake-ups: liveness files, claims, the poller, the wake-up text and its sinks."""

# The modules other layers may import; the rest of the package is internal to it.
__all__ = [
    "claims",
    "desktop",
    "liveness",
    "poller",
    "sinks",
    "wakeup",
]
