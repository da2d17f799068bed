"""browser_fetch: a rendered, read-only page fetch that cannot reach non-public addresses
(docs/fetch.md). ``addresses`` is the pure classifier, ``proxy`` the per-fetch loopback proxy
every request of the browser goes through, ``render`` the fresh headless Chromium,
``credentials`` its refusal of URL credentials at every hop, ``urls`` what each reads from a URL,
``page`` the pure reading of what it rendered, ``service`` the one operation the CLI and MCP
call."""

# The modules other layers may import; the rest of the package is internal to it.
__all__ = [
    "addresses",
    "service",
]
