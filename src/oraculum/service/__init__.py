"""The oracle operations. Surfaces (CLI, MCP) are thin over these functions."""

# The operations the surfaces call; `common` is internal to the package.
__all__ = [
    "PREVIEW_CHARS",
    "auth",
    "caller",
    "cancel",
    "clean",
    "conversation",
    "council",
    "demo",
    "doctor",
    "dryrun",
    "followup",
    "preflight",
    "presets",
    "prompt",
    "read",
    "selfcheck",
    "simulator_use",
    "status",
    "submit",
    "summary",
    "wait",
]

# How much of an answer `read` returns in JSON unless asked for all of it. It lives here, not in
# `read`, so that the CLI can show it in its help without importing the job engine.
PREVIEW_CHARS = 4000
