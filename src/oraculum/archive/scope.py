"""Whether a whole-directory archive is safe where it would be made (issue 38).

`cd ~ && oraculum submit -p hi` once archived shell histories, a GitHub token and personal
documents: the project root found from a home directory is the home directory. So a broad
input (`.`, or no files at all) is refused with ``archive_scope_unsafe`` when the root is the
home directory, `/`, or a directory with no project marker (no repository, no `.oraculum/`,
none of :data:`oraculum.core.project.PROJECT_MARKERS`), unless the files are named or the
caller allows any directory (`--allow-any-dir`, MCP ``allowAnyDir``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from oraculum.archive.inputs import WHOLE_REPO
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.project import has_marker

VCS_DIRS: tuple[str, ...] = (".git", ".hg", ".svn")


def unsafe_scope(root: Path, home: Path | None, *, marked: bool) -> str | None:
    """Why archiving all of ``root`` is unsafe, or None (pure). ``home`` is the user's home
    directory (None when unknown), ``marked`` whether ``root`` holds a project marker; both
    paths are real paths."""
    if root == root.parent:
        return "the filesystem root"
    if home is not None and root == home:
        return "your home directory"
    if not marked:
        return "not a project: no repository, .oraculum/ or project file in it"
    return None


def is_broad(inputs: Sequence[str]) -> bool:
    """Whether ``inputs`` ask for the whole directory: none at all, or `.` among them."""
    return not inputs or WHOLE_REPO in inputs


def scope_refusal(root: Path) -> str | None:
    """Why archiving all of the project root ``root`` is unsafe, from the disk, or None."""
    real = Path(os.path.realpath(root))
    try:
        home: Path | None = Path(os.path.realpath(Path.home()))
    except RuntimeError:  # no HOME and no passwd entry
        home = None
    marked = has_marker(real) or any((real / name).exists() for name in VCS_DIRS)
    return unsafe_scope(real, home, marked=marked)


def check_archive_scope(root: Path, inputs: Sequence[str], *, allow_any_dir: bool) -> None:
    """Refuse a broad archive of an unsafe root (``archive_scope_unsafe``)."""
    if allow_any_dir or not is_broad(inputs):
        return
    why = scope_refusal(root)
    if why is None:
        return
    raise OracleError(
        ErrorCode.ARCHIVE_SCOPE_UNSAFE,
        f"Refusing to archive all of {root} ({why}): it may hold private files.",
        rejected_value=list(inputs) or [WHOLE_REPO],
        suggested_next_step=(
            "Name the files or directories to send (e.g. `notes.md src/`), run from inside a "
            "project, or pass --allow-any-dir to archive this whole directory on purpose."
        ),
        details={"projectRoot": str(root), "reason": why},
    )
