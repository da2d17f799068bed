"""The oracle operations. Surfaces (CLI, MCP) are thin over these functions."""

# How much of an answer `read` returns in JSON unless asked for all of it. It lives here, not in
# `read`, so that the CLI can show it in its help without importing the job engine.
PREVIEW_CHARS = 4000
