"""`oraculum config show` and `oraculum config check`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from oraculum.cli.base import Group
from oraculum.cli.output import emit, table

if TYPE_CHECKING:
    from rich.console import Console

    from oraculum.core.config import LoadedConfig

__all__ = ["config_group"]

PROJECT = click.option(
    "--project",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    metavar="DIR",
    help="Project root whose .oraculum/config.json applies (default: found from the cwd).",
)


@click.group("config", cls=Group, examples=("oraculum config show", "oraculum config check --json"))
def config_group() -> None:
    """Show or check the effective configuration."""


def _load(project: Path | None) -> tuple[Path, LoadedConfig]:
    from oraculum.core.config import load_config
    from oraculum.core.project import find_project_root

    root = project.expanduser().absolute() if project is not None else find_project_root()
    return root, load_config(root)


def _flatten(config: dict[str, Any]) -> dict[str, Any]:
    return {
        f"{section}.{key}": value for section, body in config.items() for key, value in body.items()
    }


def _show_data(root: Path, loaded: LoadedConfig) -> dict[str, Any]:
    from oraculum.core import paths

    return {
        "config": loaded.config.to_json_dict(),
        "sources": loaded.sources,
        "files": [str(path) for path in loaded.files],
        "searched": [str(paths.global_config_path()), str(paths.project_config_path(root))],
    }


def _render_show(data: dict[str, Any], console: Console) -> None:
    shown = table("key", "value", "source", overflow="fold")
    for key, value in _flatten(data["config"]).items():
        shown.add_row(key, json.dumps(value), data["sources"][key])
    console.print(shown)
    read = data["files"]
    console.print(f"\nfiles read: {', '.join(read) if read else 'none'}", markup=False)
    console.print(f"searched: {', '.join(data['searched'])}", markup=False)


@config_group.command("show")
@PROJECT
def show_command(project: Path | None) -> None:
    """Print the effective config and where each value came from."""
    root, loaded = _load(project)
    data = _show_data(root, loaded)
    emit(data, lambda console: _render_show(data, console))


@config_group.command("check")
@PROJECT
def check_command(project: Path | None) -> None:
    """Validate the config files; exit non-zero with the first problem found."""
    from oraculum.browser.relay import opted_in

    _root, loaded = _load(project)
    browser = loaded.config.browser
    if browser.transport == "relay":  # a relay nobody opted into can never run a job
        opted_in(browser.relay.endpoint, enabled=browser.relay.enabled)
    files = [str(path) for path in loaded.files]
    data = {"ok": True, "files": files}
    summary = f"files: {', '.join(files)}" if files else "built-in defaults only"
    emit(data, lambda console: console.print(f"OK: config is valid ({summary}).", markup=False))
