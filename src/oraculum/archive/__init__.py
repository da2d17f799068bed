"""Context archives: input resolution, default exclusions, pruning, compression, ceilings.

The public API: :func:`build_archive` builds exactly what a job uploads, :func:`select_entries`
previews the same selection without compressing.

The names load with the module that defines them, on first use: a command line imports
:mod:`oraculum.archive.git` alone first, to start git's listings while the rest (zstandard
among it) loads (see :func:`oraculum.archive.git.start_early`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from oraculum.archive import git, inputs, selection
    from oraculum.archive.build import (
        ArchiveResult,
        PrunedPath,
        archive_filename,
        build_archive,
    )
    from oraculum.archive.inputs import WHOLE_REPO, ResolvedInput, resolve_inputs
    from oraculum.archive.selection import (
        Entry,
        Exclusion,
        Selection,
        Skipped,
        select_entries,
    )

# name -> the module of this package that defines it (a module's own name: the module)
_WHERE = {
    "ArchiveResult": "build",
    "PrunedPath": "build",
    "archive_filename": "build",
    "build_archive": "build",
    "WHOLE_REPO": "inputs",
    "ResolvedInput": "inputs",
    "resolve_inputs": "inputs",
    "Entry": "selection",
    "Exclusion": "selection",
    "Selection": "selection",
    "Skipped": "selection",
    "select_entries": "selection",
    "git": "git",
    "inputs": "inputs",
    "scope": "scope",
    "selection": "selection",
}

__all__ = [
    "WHOLE_REPO",
    "ArchiveResult",
    "Entry",
    "Exclusion",
    "PrunedPath",
    "ResolvedInput",
    "Selection",
    "Skipped",
    "archive_filename",
    "build_archive",
    "git",
    "inputs",
    "resolve_inputs",
    "scope",
    "select_entries",
    "selection",
]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(f"{__name__}.{where}")
    value = module if where == name else getattr(module, name)
    globals()[name] = value
    return value
