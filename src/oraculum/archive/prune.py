"""Pure decisions about size: groups of entries, compressed-size estimates, the prune plan, and
the oversize report.

Entries are sorted by path bytes, so every directory's members form one contiguous run of the
tar stream. One archive pass records (tar offset, compressed offset) pairs at block boundaries
placed around the interesting runs; any run's compressed contribution is then read off that
curve (exactly when both its ends were measured, by linear interpolation otherwise), and pruning
needs only one more build instead of one per pruned directory.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from typing import NamedTuple

from oraculum.archive import exclusions as rules
from oraculum.archive.inputs import display
from oraculum.archive.selection import Entry

MIB = 1024 * 1024
SHOW = 7  # lines per list in the oversize message
MAX_MEASURED_GROUPS = 64  # each measured group costs two compressor flushes

RETRY_ORDER = [
    "remove the largest obviously irrelevant, generated, history or export content "
    "(name narrower inputs instead of '.')",
    "archive only the directly relevant subtrees plus adjacent docs, tests and config",
    "if it still does not fit, cut further and explain what was cut before asking the user",
]


class Group(NamedTuple):
    """A contiguous run of entries ``[start, end)`` sharing a path prefix."""

    path: str
    is_dir: bool
    start: int
    end: int
    bytes: int

    def files(self) -> int:
        return self.end - self.start


def group_entries(entries: Sequence[Entry], key: Callable[[list[str]], str | None]) -> list[Group]:
    """Group consecutive entries by ``key(path segments)`` (None = ungrouped), in order."""
    groups: list[Group] = []
    current: str | None = None
    start = 0
    total = 0
    for i, entry in enumerate(entries):
        k = key(entry.path.split("/"))
        if k != current:
            if current is not None:
                groups.append(Group(current, current != entries[start].path, start, i, total))
            current, start, total = k, i, 0
        total += entry.size
    if current is not None:
        groups.append(Group(current, current != entries[start].path, start, len(entries), total))
    return groups


def top_level_key(parts: list[str]) -> str:
    return parts[0]


def candidate_groups(entries: Sequence[Entry]) -> list[Group]:
    """Prune candidates: generated-output directories outside source roots."""
    return group_entries(entries, rules.prune_candidate)


def measure_points(groups: Sequence[Group], limit: int = MAX_MEASURED_GROUPS) -> set[int]:
    """Entry indices to flush at: both ends of the ``limit`` largest groups."""
    biggest = sorted(groups, key=lambda g: (-g.bytes, g.path))[:limit]
    return {i for g in biggest for i in (g.start, g.end)}


def compressed_at(points: Sequence[tuple[int, int]], offset: int) -> float:
    """Compressed bytes produced up to tar ``offset``, interpolated between measured points."""
    xs = [p[0] for p in points]
    j = bisect.bisect_right(xs, offset)
    if j == 0:
        return 0.0
    if j >= len(points):
        return float(points[-1][1])
    (x0, y0), (x1, y1) = points[j - 1], points[j]
    if x1 == x0:
        return float(y1)
    return y0 + (y1 - y0) * (offset - x0) / (x1 - x0)


def estimate_group(group: Group, offsets: Sequence[int], points: Sequence[tuple[int, int]]) -> int:
    """Estimated compressed contribution of one group's tar bytes."""
    a, b = offsets[group.start], offsets[group.end]
    return max(0, round(compressed_at(points, b) - compressed_at(points, a)))


class Sized(NamedTuple):
    path: str
    is_dir: bool
    files: int
    bytes: int
    compressed: int

    def to_dict(self) -> dict[str, object]:
        return {
            "path": display(self.path) + ("/" if self.is_dir else ""),
            "files": self.files,
            "bytes": self.bytes,
            "estimatedCompressedBytes": self.compressed,
        }


def sized(
    groups: Sequence[Group], offsets: Sequence[int], points: Sequence[tuple[int, int]]
) -> list[Sized]:
    return [
        Sized(g.path, g.is_dir, g.files(), g.bytes, estimate_group(g, offsets, points))
        for g in groups
    ]


def plan_prune(
    candidates: Sequence[Sized], size: int, limit: int, margin: float = 0.01
) -> list[Sized] | None:
    """The candidates to prune, largest estimated contribution first, until the estimated size
    is under the limit with a small margin; None when pruning all of them cannot fit."""
    target = limit * (1 - margin)
    ordered = sorted(candidates, key=lambda c: (-c.compressed, -c.bytes, c.path))
    chosen: list[Sized] = []
    estimate = size
    for cand in ordered:
        if estimate < target:
            break
        chosen.append(cand)
        estimate -= cand.compressed
    if estimate >= limit:
        return None
    return chosen


def mib(n: float) -> str:
    return f"{n / MIB:.2f} MiB"


def too_large_message(
    *,
    provider_label: str,
    size: int,
    limit: int,
    pruned: Sequence[Sized],
    top_level: Sequence[Sized],
    remaining: Sequence[Sized],
    prune_shortfall: int | None,
) -> str:
    """The human oversize report; every figure is also in the error's structured details."""
    lines = [
        f"Oracle archive exceeds {provider_label} upload limit ({mib(limit)}) after default "
        "exclusions"
        + (" and automatic generic generated-output-dir pruning" if pruned else "")
        + ".",
        f"The local archive measured {mib(size)} ({size} bytes), so submission stopped before "
        "dispatch.",
    ]
    if pruned:
        lines.append("Automatically pruned generic generated-output paths before failing:")
        lines += [f"- {display(p.path)}/ — {mib(p.bytes)}" for p in pruned]
    if prune_shortfall is not None:
        lines.append(
            "Pruning every generated-output candidate would still leave about "
            f"{mib(prune_shortfall)} compressed, so none was pruned."
        )
    lines.append("Approx top-level included sizes (uncompressed, estimated compressed):")
    for t in sorted(top_level, key=lambda s: (-s.bytes, s.path))[:SHOW]:
        slash = "/" if t.is_dir else ""
        lines.append(
            f"- {display(t.path)}{slash} — {mib(t.bytes)} (~{mib(t.compressed)} compressed)"
        )
    if remaining:
        lines.append("Largest remaining generic generated-output-dir candidates:")
        for c in sorted(remaining, key=lambda s: (-s.bytes, s.path))[:SHOW]:
            lines.append(f"- {display(c.path)}/ — {mib(c.bytes)} (~{mib(c.compressed)} compressed)")
    lines.append(
        "Recommended retry order: "
        + ", ".join(f"({i}) {step}" for i, step in enumerate(RETRY_ORDER, 1))
        + "."
    )
    return "\n".join(lines)
