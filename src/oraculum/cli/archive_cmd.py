"""`oraculum archive`: preview or build exactly the archive a job would upload."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from oraculum.cli.base import ALLOW_ANY_DIR, Command, argument
from oraculum.cli.output import WalkProgress, columns, emit
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.providers import provider_spec

__all__ = ["archive_command", "selection_data"]

if TYPE_CHECKING:
    from oraculum.archive.selection import Selection


def _settings(project_root: Path, provider: str) -> dict[str, Any]:
    """The archive settings of the effective config (its defaults when no file sets them)."""
    from oraculum.core.config import load_config

    config = load_config(project_root).config
    return {
        "level": config.archive.zstd_level,
        "threads": config.archive.threads,
        "timeout_s": config.archive.timeout_ms / 1000,
        "max_bytes": config.archive_max_bytes(provider),
    }


def _project_root(project: Path | None) -> Path:
    if project is not None:
        if not project.is_dir():
            raise OracleError(
                ErrorCode.INVALID_ARGUMENT,
                f"--project is not a directory: {project}",
                rejected_value=str(project),
            )
        return Path(os.path.abspath(project))
    from oraculum.core.project import find_project_root

    return find_project_root()


def _mib(n: int | None) -> str:
    return "-" if n is None else f"{n / 2**20:.2f} MiB"


def selection_data(selection: Selection) -> dict[str, Any]:
    from oraculum.archive.inputs import display

    return {
        "projectRoot": str(selection.project_root),
        "inputs": [display(i) for i in selection.inputs],
        "wholeRepo": selection.whole_repo,
        "source": selection.source,
        "fileCount": len(selection.entries),
        "symlinkCount": sum(1 for e in selection.entries if e.kind == "symlink"),
        "uncompressedBytes": selection.total_bytes,
        "entries": [
            {"path": display(e.path), "kind": e.kind, "bytes": e.size}
            | ({"target": display(e.target)} if e.kind == "symlink" else {})
            for e in selection.entries
        ],
        "excluded": selection.excluded_summary(),
        "skipped": selection.skipped_dicts(),
    }


def _excluded_lines(excluded: list[dict[str, Any]], skipped: list[Any]) -> list[str]:
    """What the selection left out: a table of exclusion reasons, then each skipped path."""
    lines = []
    if excluded:
        rows = [["reason", "paths", "files listed", "examples"]]
        rows += [
            [row["reason"], str(row["paths"]), str(row["filesListed"]), ", ".join(row["examples"])]
            for row in excluded
        ]
        lines += ["excluded", *columns(rows)]
    lines += [f"skipped {item['path']}: {item['reason']}" for item in skipped]
    return lines


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _list_text(data: dict[str, Any]) -> str:
    """The selection in words: each entry, what was left out, and a summary line."""
    lines = [
        entry["path"] + (f" -> {entry['target']}" if entry["kind"] == "symlink" else "")
        for entry in data["entries"]
    ]
    lines += _excluded_lines(data["excluded"], data["skipped"])
    lines.append(
        f"{_count(data['fileCount'], 'entry', 'entries')} "
        f"({_count(data['symlinkCount'], 'symlink', 'symlinks')}), "
        f"{_mib(data['uncompressedBytes'])} uncompressed, from {data['source']} "
        f"in {data['projectRoot']}"
    )
    return "\n".join(lines)


def _build_text(data: dict[str, Any]) -> str:
    """The built archive in words: what was left out and auto-pruned, then where it is and
    what it holds."""
    lines = _excluded_lines(data["excluded"], data["skipped"])
    lines += [
        f"auto-pruned {pruned['relativePath']}/ ({_mib(pruned['bytes'])}, "
        f"~{_mib(pruned['estimatedCompressedBytes'])} compressed)"
        for pruned in data["autoPrunedArchivePaths"]
    ]
    lines.append(
        f"{data['path']}\n{data['fileCount']} entries, {_mib(data['uncompressedBytes'])} → "
        f"{_mib(data['archiveBytes'])} (limit {_mib(data['limitBytes'])}) "
        f"in {data['elapsedSeconds']:.2f} s\nsha256 {data['sha256']}"
    )
    return "\n".join(lines)


def _preview(root: Path, items: list[str], *, include_git_dir: bool) -> None:
    """`--list`: what the archive would hold (an empty selection is refused, as by the
    build)."""
    from oraculum.archive import select_entries
    from oraculum.archive.selection import empty_selection_error

    progress = WalkProgress()
    try:
        selection = select_entries(root, items, include_git_dir=include_git_dir, progress=progress)
    finally:
        progress.done()
    if not selection.entries:
        raise empty_selection_error(selection)
    data = selection_data(selection)
    emit(data, text=_list_text(data))


def _destination(out: Path | None, default_name: str) -> tuple[Path, str]:
    """The directory and file name to write: ``--out`` as a directory or a file name."""
    target = Path(out) if out is not None else Path.cwd()
    if target.is_dir():
        return target, default_name
    return target.parent, target.name


@click.command(
    "archive",
    cls=Command,
    examples=(
        "oraculum archive --list",
        "oraculum archive src/ README.md --out /tmp/context.tar.zst",
        "oraculum archive --provider grok --out /tmp/",
    ),
)
@argument(
    "files",
    nargs=-1,
    help="Files and directories relative to the current directory, as in any shell "
    "('.', the default, is this directory: the whole project from its root; "
    "'../README.md' works inside the project). Members are named from the project root.",
)
@click.option(
    "--provider",
    metavar="NAME",
    default="chatgpt",
    show_default=True,
    help="chatgpt (.tar.zst), grok or gemini (.tar.gz).",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    metavar="FILE|DIR",
    help="Archive file or directory to write (default: current dir).",
)
@click.option("--list", "list_only", is_flag=True, help="Only list what would be archived.")
@click.option(
    "--project",
    type=click.Path(path_type=Path),
    metavar="DIR",
    help="Project root (default: found from the current dir); from outside it, "
    "inputs are relative to it.",
)
@click.option(
    "--include-git-dir",
    is_flag=True,
    help="Allow naming .git (every committed secret in its history goes with it).",
)
@ALLOW_ANY_DIR
def archive_command(
    files: tuple[str, ...],
    provider: str,
    out: Path | None,
    list_only: bool,
    project: Path | None,
    include_git_dir: bool,
    allow_any_dir: bool,
) -> None:
    """Preview (--list) or build exactly the context archive a job would upload."""
    from oraculum.archive.git import start_early
    from oraculum.archive.scope import check_archive_scope

    spec = provider_spec(provider, dry_run=False)
    root = _project_root(project)
    check_archive_scope(root, list(files), allow_any_dir=allow_any_dir)
    # git lists the project while the archive code (zstandard among it) loads: the build
    # waits for git's walk of the whole tree before it writes its first file.
    start_early(root)
    from oraculum.archive import build_archive
    from oraculum.archive.inputs import from_cwd

    items = from_cwd(root, None, list(files) or ["."])
    if list_only:
        _preview(root, items, include_git_dir=include_git_dir)
        return
    job_id = time.strftime("preview-%Y%m%d-%H%M%S")
    dest_dir, filename = _destination(out, f"context-{job_id}{spec.archive_suffix}")
    progress = WalkProgress()
    try:
        result = build_archive(
            root,
            items,
            dest_dir,
            job_id,
            spec.name,
            filename=filename,
            include_git_dir=include_git_dir,
            # Written the way tar and zstd write: complete under a temporary name, then
            # renamed into place, but not fsynced. Nothing depends on its surviving a power
            # cut; a job's archive, which the job's record points to, is fsynced.
            fsync=False,
            progress=progress,
            **_settings(root, spec.name),
        )
    finally:
        progress.done()
    data = result.to_dict()
    emit(data, text=_build_text(data))
