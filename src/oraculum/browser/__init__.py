"""Browser layer: Chromium executable, launch flags, runtime profiles, diagnostics."""

# The modules other layers may import; the rest of the package is internal to it.
__all__ = [
    "chromium",
    "diagnostics",
    "errors",
    "profile",
    "session",
]
