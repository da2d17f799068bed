"""The root command: its options, and the registry of commands, each loaded when named.

A command is one line in :data:`COMMANDS`: its name and where its click command lives. A start
imports only the module of the command it runs (help imports every one, to list them); command
modules import click and light modules at the top and load their library code (services,
browsers, servers) inside the commands that run it.
"""

from __future__ import annotations

import importlib

import click

from oraculum import __version__
from oraculum.cli.base import HELP_OPTIONS, Group
from oraculum.cli.output import MODE, emit

__all__ = ["COMMANDS", "app"]

COMMANDS = {
    "archive": "oraculum.cli.archive_cmd:archive_command",
    "auth": "oraculum.cli.auth_cmd:auth_command",
    "bridge": "oraculum.cli.bridge_cmd:bridge_group",
    "browser": "oraculum.cli.browser_cmd:browser_group",
    "cancel": "oraculum.cli.cancel_cmd:cancel_command",
    "clean": "oraculum.cli.cancel_cmd:clean_command",
    "council": "oraculum.cli.council_cmd:council_command",
    "codex-search": "oraculum.cli.subagent_cmd:codex_search_command",
    "completion": "oraculum.cli.completion_cmd:completion_command",
    "config": "oraculum.cli.config_cmd:config_group",
    "demo": "oraculum.cli.demo_cmd:demo_command",
    "doctor": "oraculum.cli.doctor_cmd:doctor_command",
    "fetch": "oraculum.cli.fetch_cmd:fetch_command",
    "followup": "oraculum.cli.submit_cmd:followup_command",
    "mcp": "oraculum.cli.mcp_cmd:mcp_command",
    "open": "oraculum.cli.open_cmd:open_command",
    "preflight": "oraculum.cli.preflight_cmd:preflight_command",
    "presets": "oraculum.cli.presets_cmd:presets_command",
    "proc": "oraculum.cli.proc_cmd:proc_group",
    "read": "oraculum.cli.read_cmd:read_command",
    "schedule": "oraculum.cli.schedule_cmd:schedule_group",
    "selfcheck": "oraculum.cli.selfcheck_cmd:selfcheck_command",
    "simulator": "oraculum.cli.simulator_cmd:simulator_group",
    "status": "oraculum.cli.status_cmd:status_command",
    "subagent": "oraculum.cli.subagent_cmd:subagent_command",
    "submit": "oraculum.cli.submit_cmd:submit_command",
    "wait": "oraculum.cli.wait_cmd:wait_command",
    "wakeups": "oraculum.cli.wakeups_cmd:wakeups_group",
}


def load_command(name: str) -> click.Command:
    """The click command registered as ``name`` (its module imported now)."""
    module, attribute = COMMANDS[name].split(":")
    command = getattr(importlib.import_module(module), attribute)
    assert isinstance(command, click.Command), COMMANDS[name]
    return command


class Registry(Group):
    """The root group: its commands come from :data:`COMMANDS`, imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return load_command(cmd_name) if cmd_name in COMMANDS else None

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.exceptions.NoSuchCommand as unknown:
            # Click suggests from the commands loaded so far: here, none.
            raise click.exceptions.NoSuchCommand(
                unknown.command_name, possibilities=COMMANDS, ctx=ctx
            ) from None


def _version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        emit({"version": __version__}, text=f"oraculum {__version__}")
        ctx.exit()


@click.group(
    "oraculum",
    cls=Registry,
    context_settings=HELP_OPTIONS,
    examples=(
        "oraculum demo",
        'oraculum submit -p "Review the error handling" src/',
        "oraculum wait && oraculum read",
        "oraculum status --json",
    ),
)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_version,
    help="Print the version.",
)
@click.option(
    "--json", "json_output", is_flag=True, help="Print one JSON document instead of human output."
)
def app(json_output: bool) -> None:
    """Consult ChatGPT, Grok and Gemini web products as durable background jobs."""
    if json_output:
        MODE.json = True
    # Any command restarts the scheduler's runner when schedules are pending and none lives
    # (one stat when nothing is scheduled).
    from oraculum.scheduler.hook import restart_runner_if_pending

    restart_runner_if_pending()
