"""Context archives: input resolution, default exclusions, pruning, compression, ceilings.

The public API: :func:`build_archive` builds exactly what a job uploads, :func:`select_entries`
previews the same selection without compressing.
"""

from __future__ import annotations

from oraculum.archive.build import (
    ArchiveResult,
    PrunedPath,
    archive_filename,
    build_archive,
)
from oraculum.archive.inputs import WHOLE_REPO, ResolvedInput, resolve_inputs
from oraculum.archive.selection import Entry, Exclusion, Selection, Skipped, select_entries

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
    "inputs",
    "resolve_inputs",
    "select_entries",
    "selection",
]
