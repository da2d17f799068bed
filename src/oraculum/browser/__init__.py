"""Browser layer: Chromium executable, launch flags, runtime profiles, diagnostics, and the
transports (isolated launch, the managed keeper, the relay to the user's Chrome)."""

# The modules other layers may import; the rest of the package is internal to it.
__all__ = [
    "cdp",
    "chromium",
    "diagnostics",
    "errors",
    "keeper",
    "profile",
    "relay",
    "session",
    "tabpin",
    "transport",
]
