"""`oraculum mcp`: the MCP server on stdio; `--profile` picks its tool set."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from oraculum.cli.base import Command
from oraculum.cli.output import emit

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


@click.command(
    "mcp",
    cls=Command,
    examples=("oraculum mcp", "oraculum mcp --profile all", "oraculum mcp --list-profiles"),
)
@click.option(
    "--session",
    metavar="ID",
    help="Session id for this server (default: $ORACULUM_SESSION, else one generated per "
    "server process).",
)
@click.option(
    "--profile",
    metavar="NAME",
    default="oracle",
    show_default=True,
    help="The tool set to expose: oracle, research (+ browser_fetch), processes, scheduler, "
    "subagents or all. Tools outside it are neither listed nor callable.",
)
@click.option(
    "--list-profiles", is_flag=True, help="Print the profiles and their tools, then exit."
)
def mcp_command(session: str | None, profile: str, list_profiles: bool) -> None:
    """Serve the oracle tools, prompts and resources over MCP (stdio)."""
    from oraculum.mcp.profiles import profile_families

    if list_profiles:
        result = _profiles()
        emit(result, lambda out: _render_profiles(result, out))
        return
    profile_families(profile, ())  # an unknown profile is refused before anything starts
    from oraculum.mcp.stdio import serve  # the MCP SDK loads only for this command

    serve(session=session, profile=profile)
