"""`oraculum bridge describe|call|prompt|serve`: the oracle tools for agent-host bridges that call
the CLI instead of speaking MCP (the pi package in `integrations/pi/`). Same schemas, results
and errors as the MCP server (:mod:`oraculum.mcp.bridge`)."""

from __future__ import annotations

import json
import sys

import click

from oraculum.cli.base import SESSION, Group, argument
from oraculum.cli.output import emit
from oraculum.core.bounded import loads_bounded
from oraculum.core.errors import ErrorCode, OracleError

__all__ = ["bridge_group"]

# A tool's arguments arrive on stdin: a prompt can be megabytes and must not show in `ps`.
MAX_ARGUMENTS_BYTES = 16 * 2**20

PROFILE = click.option(
    "--profile",
    metavar="NAME",
    default="oracle",
    show_default=True,
    help="Capability profile (see `oraculum mcp --list-profiles`).",
)


@click.group(
    "bridge",
    cls=Group,
    examples=(
        "oraculum bridge describe",
        """echo '{"jobId": "3k9x2a"}' | oraculum bridge call oracle_status --session S""",
        "oraculum bridge prompt oracle-followup 3k9x2a",
    ),
)
def bridge_group() -> None:
    """The oracle tools for agent-host bridges (JSON in, JSON out)."""


def read_arguments(raw: bytes) -> object:
    """The tool's arguments: one JSON value (an empty input is no arguments)."""
    if len(raw) > MAX_ARGUMENTS_BYTES:
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            f"The tool arguments exceed {MAX_ARGUMENTS_BYTES // 2**20} MiB.",
        )
    if not raw.strip():
        return {}
    try:
        return loads_bounded(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            f"The tool arguments on stdin cannot be read as JSON: {exc}.",
        ) from None


@bridge_group.command("describe")
@PROFILE
def describe_command(profile: str) -> None:
    """Print the tools (name, title, description, input schema) and the dispatch prompts."""
    from oraculum.mcp.bridge import describe

    result = describe(profile)
    emit(result, text=json.dumps(result, indent=2, ensure_ascii=False))


@bridge_group.command("call")
@argument("tool", help="The tool's name, e.g. oracle_status.")
@SESSION
@PROFILE
def call_command(tool: str, session: str | None, profile: str) -> None:
    """Run one tool with the JSON arguments on stdin; print {text, data, isError}. A tool
    error is a result (exit 0), as in MCP."""
    from oraculum.mcp.bridge import call

    arguments = read_arguments(sys.stdin.buffer.read(MAX_ARGUMENTS_BYTES + 1))
    result = call(tool, arguments, session=session, profile=profile)
    emit(result, text=result["text"])


@bridge_group.command("prompt")
@argument("name", help="oracle or oracle-followup.")
@argument("arguments", nargs=-1, help="The prompt's arguments.")
def prompt_command(name: str, arguments: tuple[str, ...]) -> None:
    """Print a dispatch prompt filled in with its arguments."""
    from oraculum.mcp.bridge import render_prompt

    text = render_prompt(name, list(arguments))
    emit({"name": name, "text": text}, text=text)


@bridge_group.command("serve")
@SESSION
@PROFILE
def serve_command(session: str | None, profile: str) -> None:
    """Answer the session's tool calls as JSON lines on stdin/stdout until stdin closes (one
    long-lived process per host session: no start-up per call)."""
    from oraculum.mcp.bridge import serve

    serve(sys.stdin, sys.stdout, session=session, profile=profile)
