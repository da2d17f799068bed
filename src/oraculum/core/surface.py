"""Who reads a message, and how a next step names that reader's commands.

Every layer words its messages and suggested next steps for the command line ("Run
`oraculum status` to list job ids."): the CLI is the reference surface, and an error raised
deep in the job engine does not know who called. An agent talking MCP cannot run a shell
command, though, so the MCP surface rewrites each `oraculum <command>` mention that has an
MCP tool into that tool's call, once, at its boundary (:func:`for_surface`). Commands
without a tool (`oraculum clean`, `oraculum auth --manual`, …) stay as they are: they are the
user's to run in a terminal.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Literal

Surface = Literal["cli", "mcp"]

# `oraculum <command>` → (MCP tool, the positional argument's name, flags the tool takes).
_TOOLS: dict[str, tuple[str, str | None, dict[str, tuple[str, str]]]] = {
    "read": ("oracle_read", "jobId", {"--recollect": ("action", "recollect")}),
    "status": ("oracle_status", "jobId", {}),
    "wait": ("oracle_wait", "jobId", {}),
    "cancel": ("oracle_cancel", "jobId", {}),
    "auth": ("oracle_auth", "provider", {}),
    "preflight": ("oracle_preflight", None, {}),
    "presets": ("oracle_presets", None, {}),
    "submit": ("oracle_submit", None, {}),
    "followup": ("oracle_submit", "followUpJobId", {}),
}
# An optional "Run"/"run" before the command, the command in backticks, and an optional
# "(oracle_x)" after it that named the tool for agents.
_MENTION = re.compile(r"(?:\b([Rr]un) )?`oraculum ([^`]+)`(?: \((oracle_\w+)\))?")


def tool_call(tool: str, arguments: dict[str, str] | None = None) -> str:
    """How a message names an MCP tool call: `oracle_read {"jobId": "…"}`."""
    if not arguments:
        return f"`{tool}`"
    return f"`{tool} {json.dumps(arguments, ensure_ascii=False)}`"


def mcp_command(command_line: str) -> str | None:
    """The MCP tool call for one `oraculum …` command line; None when no tool does it."""
    try:
        words = shlex.split(command_line)
    except ValueError:
        return None
    if not words or words[0] not in _TOOLS:
        return None
    tool, positional, flags = _TOOLS[words[0]]
    arguments: dict[str, str] = {}
    for word in words[1:]:
        if word in flags:
            key, value = flags[word]
            arguments[key] = value
        elif word.startswith("-") or positional is None or positional in arguments:
            return None  # a flag the tool does not take: the command line it stays
        elif not re.fullmatch(r"[\w.-]+", word):
            return None  # a placeholder such as <job-id>: the tool's schema says it better
        else:
            arguments[positional] = word
    return tool_call(tool, arguments)


def for_surface(text: str | None, surface: Surface) -> str | None:
    """``text`` with its command mentions in the reader's terms (unchanged for the CLI)."""
    if text is None or surface == "cli":
        return text

    def replace(match: re.Match[str]) -> str:
        verb, command, _named_tool = match.groups()
        call = mcp_command(command)
        if call is None:
            return match.group(0)
        return f"{'Call' if verb == 'Run' else 'call'} {call}" if verb else call

    return _MENTION.sub(replace, text)
