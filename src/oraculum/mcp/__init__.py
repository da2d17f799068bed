"""The MCP surface (`oraculum mcp`). The SDK is the top-level `mcp` package; this package is
`oraculum.mcp`, and imports are absolute, so the two never shadow each other."""

# The modules other layers may import; the rest of the package is internal to it.
__all__ = [
    "bridge",
    "families",
    "profiles",
    "server",
    "state",
    "stdio",
]
