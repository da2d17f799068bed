"""The oracle operations. Surfaces (CLI, MCP) are thin over these functions."""
