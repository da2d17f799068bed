"""Small marker directories that let hot paths skip the thousands of finished jobs.

`queue/<job-id>` marks a queued job, `open/<job-id>` a job that still needs watching (open, or
terminal with cleanup or wake-up delivery outstanding). Job ids sort by creation time, so the
queue directory listed in name order is the queue in submit order. The markers are hints:
readers always confirm against `job.json` and drop markers that no longer hold.
"""

from __future__ import annotations

import os
from pathlib import Path

from oraculum.core.fsio import ensure_private_dir
from oraculum.core.paths import state_dir
from oraculum.jobs.ids import JOB_ID_PATTERN

QUEUE = "queue"
OPEN = "open"


def _dir(name: str, root: Path | None) -> Path:
    return (root or state_dir()) / "index" / name


def mark(name: str, job_id: str, *, root: Path | None = None) -> None:
    directory = ensure_private_dir(_dir(name, root))
    fd = os.open(directory / job_id, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
    os.close(fd)


def unmark(name: str, job_id: str, *, root: Path | None = None) -> None:
    (_dir(name, root) / job_id).unlink(missing_ok=True)


def members(name: str, *, root: Path | None = None) -> list[str]:
    try:
        names = os.listdir(_dir(name, root))
    except FileNotFoundError:
        return []
    return sorted(n for n in names if JOB_ID_PATTERN.fullmatch(n))
