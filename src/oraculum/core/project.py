"""Which project a working directory belongs to, and its stable id.

The project root is the git top level, except when the nearest project marker sits below a git
repository that is not itself a project (a dotfiles repository tracking the home directory, for
example): then the marker's directory wins.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

PROJECT_MARKERS: tuple[str, ...] = (
    ".oraculum",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "package.json",
    "Cargo.toml",
    "go.mod",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "Gemfile",
    "composer.json",
    "mix.exs",
    "deno.json",
    "CMakeLists.txt",
    "AGENTS.md",
)


def has_marker(directory: Path) -> bool:
    return any((directory / marker).exists() for marker in PROJECT_MARKERS)


def choose_project_root(start: Path, marker_dirs: list[Path], git_dirs: list[Path]) -> Path:
    """Pure rule over what a walk upward found.

    ``marker_dirs`` and ``git_dirs`` are the directories on the walk from ``start`` upward that
    hold a project marker or a ``.git`` entry, nearest first.
    """
    nearest_marker = marker_dirs[0] if marker_dirs else None
    nearest_git = git_dirs[0] if git_dirs else None
    if nearest_git is None:
        return nearest_marker or start
    if nearest_marker is None or nearest_marker == nearest_git:
        return nearest_git
    if nearest_marker.is_relative_to(nearest_git) and nearest_git in marker_dirs:
        # The repository is itself a project (a monorepo): its top level is the root.
        return nearest_git
    if nearest_marker.is_relative_to(nearest_git):
        return nearest_marker
    return nearest_git


def find_project_root(start: Path | None = None) -> Path:
    """Walk upward from ``start`` (default: the current directory) to the project root."""
    here = Path(os.path.realpath(start or Path.cwd()))
    marker_dirs: list[Path] = []
    git_dirs: list[Path] = []
    for directory in (here, *here.parents):
        if has_marker(directory):
            marker_dirs.append(directory)
        if (directory / ".git").exists():
            git_dirs.append(directory)
            break  # the first repository upward bounds the search
    return choose_project_root(here, marker_dirs, git_dirs)


def project_id(root: Path) -> str:
    """A stable id for a project: a hash of its real path."""
    real = os.path.realpath(root)
    return hashlib.sha256(os.fsencode(real)).hexdigest()[:16]
