"""`oraculum mcp`: the MCP server on stdio."""

from __future__ import annotations

import typer

from oraculum.cli.app import app


@app.command("mcp")
def mcp_command(
    session: str | None = typer.Option(
        None,
        "--session",
        help="Session id for this server (default: $ORACULUM_SESSION, else one generated per "
        "server process).",
    ),
) -> None:
    """Serve the oracle tools, prompts and resources over MCP (stdio)."""
    from oraculum.mcp.stdio import serve  # the MCP SDK loads only for this command

    serve(session=session)
