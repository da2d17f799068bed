"""Collection: bind to one assistant turn, capture it, save the response and its artifacts.

Drivers call `collect` (capture.js, or the provider's own capture function its registry entry
names, through `own_capture`); `page` holds the capture request and the typed turn it returns."""

# The modules other layers may import; the rest of the package is internal to it.
__all__ = [
    "collect",
    "files",
    "page",
    "research",
]
