"""`oraculum open JOB`: the job's conversation URL (and with --browser, opened)."""

from __future__ import annotations

import typer

from oraculum.cli.app import app, emit


@app.command("open")
def open_command(
    job: str = typer.Argument(..., help="Job id, prefix or last characters (any project)."),
    browser: bool = typer.Option(
        False, "--browser", help="Also open it in your default web browser."
    ),
) -> None:
    """Print the job's conversation URL (to read the thread in the web app yourself)."""
    from oraculum.service.conversation import conversation_link

    link = conversation_link(job)
    emit(link.to_json(), text=link.text("cli"))
    if browser:
        import webbrowser

        webbrowser.open(link.url)  # the platform's opener: an argv, never a shell
