"""Small marker directories that let hot paths skip the thousands of finished jobs.

`queue/<job-id>` marks a queued job (holding its archive size), `open/<job-id>` a job that
still needs watching (open, or terminal with cleanup or wake-up delivery outstanding), and
`stranded/<job-id>` a job that never ran but whose archive could not be deleted yet. Job ids
sort by submit order, so the queue directory listed in name order is the queue. The markers
are hints: readers always confirm against `job.json` and drop markers that no longer hold.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from oraculum.core.fsio import ensure_private_dir
from oraculum.core.paths import state_dir
from oraculum.jobs.ids import JOB_ID_PATTERN

QUEUE = "queue"
OPEN = "open"
STRANDED = "stranded"


def project(project_id: str) -> str:
    """The index of one project's jobs, so listing them never walks every job."""
    return f"project/{project_id}"


def _dir(name: str, root: Path | None) -> Path:
    return (root or state_dir()) / "index" / name


def mark(name: str, job_id: str, *, size: int = 0, root: Path | None = None) -> None:
    directory = ensure_private_dir(_dir(name, root))
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC
    fd = os.open(directory / job_id, flags, 0o600)
    try:
        if size:
            os.write(fd, str(size).encode())
    finally:
        os.close(fd)


def total_size(name: str, *, root: Path | None = None) -> int:
    """The sum of the sizes recorded in the markers of ``name``.

    Admission sums the whole queue on every queued submit, under its lock, so each marker is
    read with bare system calls relative to the directory (no path objects, no file objects).
    """
    try:
        dir_fd = os.open(_dir(name, root), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        return 0
    total = 0
    try:
        for job_id in members(name, root=root):
            try:
                fd = os.open(job_id, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
            except OSError:  # gone meanwhile (or not a marker we wrote): counts nothing
                continue
            try:
                data = os.read(fd, 32)
            finally:
                os.close(fd)
            try:
                total += int(data or b"0")
            except ValueError:
                continue
    finally:
        os.close(dir_fd)
    return total


def unmark(name: str, job_id: str, *, root: Path | None = None) -> None:
    (_dir(name, root) / job_id).unlink(missing_ok=True)


def members(name: str, *, root: Path | None = None) -> list[str]:
    try:
        names = os.listdir(_dir(name, root))
    except FileNotFoundError:
        return []
    return sorted(n for n in names if JOB_ID_PATTERN.fullmatch(n))


def register(job_id: str, project_id: str, *, queued_bytes: int | None = None) -> None:
    """Index a job that is about to be created (before its directory exists, so a crash
    leaves at worst a marker without a job, which readers drop)."""
    mark(OPEN, job_id)
    mark(project(project_id), job_id)
    if queued_bytes is not None:
        mark(QUEUE, job_id, size=queued_bytes)


def forget(job_id: str, project_id: str) -> None:
    """Remove a job from every index (it is gone, or never came to be)."""
    for name in (QUEUE, OPEN, STRANDED, project(project_id)):
        unmark(name, job_id)


def marked_within(name: str, job_id: str, seconds: float, *, root: Path | None = None) -> bool:
    """Whether ``job_id``'s marker was made less than ``seconds`` ago.

    A job is marked before its directory is created, so a young marker whose job cannot be
    read yet belongs to a job being born, not to one that is gone.
    """
    try:
        made = (_dir(name, root) / job_id).stat().st_mtime
    except FileNotFoundError:
        return False
    return time.time() - made < seconds
