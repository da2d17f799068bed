"""What the server says about itself when a client opens: the `initialize` handshake (protocol
2025-11-25 and earlier) and `server/discover` (2026-07-28).

A light module (no SDK import): the stdio entry answers either from it before the SDK has
loaded (see :mod:`oraculum.mcp.stdio`), and the SDK server is built from the same values, so
the answers cannot drift apart (the entry also compares them at run time).
"""

from __future__ import annotations

from typing import Any

from oraculum import __version__

NAME = "oraculum"
VERSION = __version__
INSTRUCTIONS = """\
oraculum consults the ChatGPT / Grok web apps as durable background jobs.
Workflow: oracle_preflight first; then oracle_submit (returns at once with a job id); stop and \
wait for the completion wake-up, which arrives in a later oracle tool result, or long-poll \
with oracle_wait (at most 50 s per call; call it again while the job runs); then oracle_read. \
Answers are saved on disk and survive disconnects. Errors are tool errors carrying a code and \
a suggested next step."""

# What the SDK server built in `oraculum.mcp.server` advertises to an `initialize` client: tools,
# prompts and resources, none of them with list-changed notifications or legacy
# `resources/subscribe` (the SDK serves subscriptions on `subscriptions/listen` only).
CAPABILITIES: dict[str, Any] = {
    "prompts": {"listChanged": False},
    "resources": {"subscribe": False, "listChanged": False},
    "tools": {"listChanged": False},
}
# The `initialize` handshake's protocol revisions (the SDK's HANDSHAKE_PROTOCOL_VERSIONS; a test
# keeps the two equal): a client asking for another one is offered the newest.
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
# The per-request-envelope revisions `server/discover` offers (the SDK's MODERN_PROTOCOL_VERSIONS).
MODERN_VERSIONS = ("2026-07-28",)
# The `_meta` keys of a 2026-07-28 request's envelope, and of the server's identity in a result.
PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
# At 2026-07-28 change notifications travel on `subscriptions/listen` streams, which the server
# serves: the SDK then advertises every list as changeable and resources as subscribable.
MODERN_CAPABILITIES: dict[str, Any] = {
    "prompts": {"listChanged": True},
    "resources": {"subscribe": True, "listChanged": True},
    "tools": {"listChanged": True},
}


def initialize_result(requested: str) -> dict[str, Any]:
    """The `initialize` result the server gives a client asking for protocol ``requested``."""
    version = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    return {
        "protocolVersion": version,
        "capabilities": CAPABILITIES,
        "serverInfo": {"name": NAME, "version": VERSION},
        "instructions": INSTRUCTIONS,
    }


def discover_result() -> dict[str, Any]:
    """The `server/discover` result (2026-07-28), as the SDK server stamps it: its versions,
    capabilities and instructions, its identity in `_meta`, and no caching."""
    return {
        "supportedVersions": list(MODERN_VERSIONS),
        "capabilities": MODERN_CAPABILITIES,
        "instructions": INSTRUCTIONS,
        "resultType": "complete",
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": {SERVER_INFO_KEY: {"name": NAME, "version": VERSION}},
    }
