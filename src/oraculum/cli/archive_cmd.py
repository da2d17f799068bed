"""`oraculum archive`: preview or build exactly the archive a job would upload."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from oraculum.cli.app import app
from oraculum.cli.archiving import ALLOW_ANY_DIR_HELP, run_archive


@app.command("archive")
def archive_command(
    inputs: Annotated[
        list[str] | None,
        typer.Argument(
            help="Files and directories relative to the current directory, as in any shell "
            "('.', the default, is this directory: the whole project from its root; "
            "'../README.md' works inside the project). Members are named from the project root."
        ),
    ] = None,
    provider: Annotated[
        str, typer.Option("--provider", help="chatgpt (.tar.zst) or grok (.tar.gz).")
    ] = "chatgpt",
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Archive file or directory to write (default: current dir)."),
    ] = None,
    list_only: Annotated[
        bool, typer.Option("--list", help="Only list what would be archived.")
    ] = False,
    project: Annotated[
        Path | None,
        typer.Option(
            "--project",
            help="Project root (default: found from the current dir); from outside it, "
            "inputs are relative to it.",
        ),
    ] = None,
    include_git_dir: Annotated[
        bool,
        typer.Option(
            "--include-git-dir",
            help="Allow naming .git (every committed secret in its history goes with it).",
        ),
    ] = False,
    allow_any_dir: Annotated[
        bool,
        typer.Option("--allow-any-dir", help=ALLOW_ANY_DIR_HELP),
    ] = False,
) -> None:
    """Preview (--list) or build exactly the context archive a job would upload."""
    run_archive(
        inputs,
        provider=provider,
        out=out,
        list_only=list_only,
        project=project,
        include_git_dir=include_git_dir,
        allow_any_dir=allow_any_dir,
    )
