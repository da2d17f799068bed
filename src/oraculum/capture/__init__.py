"""Collection: bind to one assistant turn, capture it, save the response and its artifacts.

Drivers call `collect` (ChatGPT's capture.js) or `grok_collect` (a provider's own capture
function); `page` holds the capture request and the typed turn it returns."""

# The modules other layers may import; the rest of the package is internal to it.
__all__ = [
    "collect",
    "files",
    "grok_collect",
    "page",
    "research",
]
