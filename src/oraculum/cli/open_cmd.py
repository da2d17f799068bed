"""`oraculum open JOB`: the job's conversation URL (and with --browser, opened)."""

from __future__ import annotations

import click

from oraculum.cli.base import Command, argument
from oraculum.cli.output import emit


@click.command("open", cls=Command, examples=("oraculum open 3k9x2a --browser",))
@argument("job", help="Job id, prefix or last characters (any project).")
@click.option("--browser", is_flag=True, help="Also open it in your default web browser.")
def open_command(job: str, browser: bool) -> None:
    """Print the job's conversation URL (to read the thread in the web app yourself)."""
    from oraculum.service.conversation import conversation_link

    link = conversation_link(job)
    emit(link.to_json(), text=link.text("cli"))
    if browser:
        import webbrowser

        webbrowser.open(link.url)  # the platform's opener: an argv, never a shell
