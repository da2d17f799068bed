"""`oraculum bridge describe|call|prompt`: the oracle tools for agent-host bridges that call
the CLI instead of speaking MCP (the pi package in `integrations/pi/`). Same schemas, results
and errors as the MCP server (:mod:`oraculum.mcp.bridge`)."""

from __future__ import annotations

import json
import sys

import typer

from oraculum.cli.app import app, emit
from oraculum.cli.wait_cmd import SESSION_OPTION
from oraculum.core.bounded import loads_bounded
from oraculum.core.errors import OracleError

__all__ = ["bridge_app"]

# A tool's arguments arrive on stdin: a prompt can be megabytes and must not show in `ps`.
MAX_ARGUMENTS_BYTES = 16 * 2**20

PROMPT_ARGUMENTS = typer.Argument(None, help="The prompt's arguments.")
PROFILE_OPTION = typer.Option(
    "oracle", "--profile", help="Capability profile (see `oraculum mcp --list-profiles`)."
)

bridge_app = typer.Typer(
    help="The oracle tools for agent-host bridges (JSON in, JSON out).",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
app.add_typer(bridge_app, name="bridge")


def read_arguments(raw: bytes) -> object:
    """The tool's arguments: one JSON value (an empty input is no arguments)."""
    if len(raw) > MAX_ARGUMENTS_BYTES:
        raise OracleError(
            "invalid_argument",
            f"The tool arguments exceed {MAX_ARGUMENTS_BYTES // 2**20} MiB.",
        )
    if not raw.strip():
        return {}
    try:
        return loads_bounded(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise OracleError(
            "invalid_argument", f"The tool arguments on stdin cannot be read as JSON: {exc}."
        ) from None


@bridge_app.command("describe")
def describe_command(profile: str = PROFILE_OPTION) -> None:
    """Print the tools (name, title, description, input schema) and the dispatch prompts."""
    from oraculum.mcp.bridge import describe

    result = describe(profile)
    emit(result, text=json.dumps(result, indent=2, ensure_ascii=False))


@bridge_app.command("call")
def call_command(
    tool: str = typer.Argument(..., help="The tool's name, e.g. oracle_status."),
    session: str | None = SESSION_OPTION,
    profile: str = PROFILE_OPTION,
) -> None:
    """Run one tool with the JSON arguments on stdin; print {text, data, isError}. A tool
    error is a result (exit 0), as in MCP."""
    from oraculum.mcp.bridge import call

    arguments = read_arguments(sys.stdin.buffer.read(MAX_ARGUMENTS_BYTES + 1))
    result = call(tool, arguments, session=session, profile=profile)
    emit(result, text=result["text"])


@bridge_app.command("prompt")
def prompt_command(
    name: str = typer.Argument(..., help="oracle or oracle-followup."),
    arguments: list[str] | None = PROMPT_ARGUMENTS,
) -> None:
    """Print a dispatch prompt filled in with its arguments."""
    from oraculum.mcp.bridge import render_prompt

    text = render_prompt(name, arguments or [])
    emit({"name": name, "text": text}, text=text)


@bridge_app.command("serve")
def serve_command(session: str | None = SESSION_OPTION, profile: str = PROFILE_OPTION) -> None:
    """Answer the session's tool calls as JSON lines on stdin/stdout until stdin closes (one
    long-lived process per host session: no start-up per call)."""
    from oraculum.mcp.bridge import serve

    serve(sys.stdin, sys.stdout, session=session, profile=profile)
