"""The MCP surface (`oraculum mcp`). The SDK is the top-level `mcp` package; this package is
`oraculum.mcp`, and imports are absolute, so the two never shadow each other."""
