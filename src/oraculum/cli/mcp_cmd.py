"""`oraculum mcp`: the MCP server on stdio; `--profile` picks its tool set."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from oraculum.cli.app import app, emit

if TYPE_CHECKING:
    from rich.console import Console


def _profiles() -> dict[str, Any]:
    """Every profile with its families and the tools they bring (the SDK loads for this)."""
    from oraculum.mcp.families import family_modules
    from oraculum.mcp.profiles import DEFAULT_PROFILE, PROFILES, profile_families
    from oraculum.mcp.server import profile_tools

    present = [module.FAMILY for module in family_modules()]
    rows = [
        {
            "name": name,
            "default": name == DEFAULT_PROFILE,
            "families": list(profile_families(name, present)),
            "tools": [spec.name for spec in profile_tools(name)],
        }
        for name in PROFILES
    ]
    return {"profiles": rows}


def _render_profiles(result: dict[str, Any], out: Console) -> None:
    for row in result["profiles"]:
        mark = " (default)" if row["default"] else ""
        out.print(f"{row['name']}{mark}: {', '.join(row['tools'])}", markup=False)


@app.command("mcp")
def mcp_command(
    session: str | None = typer.Option(
        None,
        "--session",
        help="Session id for this server (default: $ORACULUM_SESSION, else one generated per "
        "server process).",
    ),
    profile: str = typer.Option(
        "oracle",
        "--profile",
        help="The tool set to expose: oracle, research (+ browser_fetch), processes, scheduler, "
        "subagents or all. Tools outside it are neither listed nor callable.",
    ),
    list_profiles: bool = typer.Option(
        False, "--list-profiles", help="Print the profiles and their tools, then exit."
    ),
) -> None:
    """Serve the oracle tools, prompts and resources over MCP (stdio)."""
    from oraculum.mcp.profiles import profile_families

    if list_profiles:
        result = _profiles()
        emit(result, lambda out: _render_profiles(result, out))
        return
    profile_families(profile, ())  # an unknown profile is refused before anything starts
    from oraculum.mcp.stdio import serve  # the MCP SDK loads only for this command

    serve(session=session, profile=profile)
