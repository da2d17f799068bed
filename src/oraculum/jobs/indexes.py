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

from oraculum.core.fsio import close_quietly, ensure_private_dir, name_file, unnamed_file
from oraculum.core.paths import state_dir
from oraculum.jobs.ids import JOB_ID_PATTERN

QUEUE = "queue"
OPEN = "open"
STRANDED = "stranded"


def project(project_id: str) -> str:
    """The index of one project's jobs, so listing them never walks every job."""
    return f"project/{project_id}"


def _index_root(root: Path | None) -> Path:
    return (root or state_dir()) / "index"


def _dir(name: str, root: Path | None) -> Path:
    return _index_root(root) / name


class Blank:
    """One job's marker file, made before a lock with no name yet, so that marking under the
    lock only names it (see :func:`oraculum.core.fsio.unnamed_file`). It is one file for all
    of the job's indexes, named in each: a name costs ~20 µs, a file 0.3–1 ms. Markers are
    never written after they are named (a marker made again by name writes the same size),
    so sharing the file changes nothing a reader sees; the sizes summed are the queue's.
    Where it cannot be made or named, each index is marked by creating its file. Close it
    when done: unnamed, it is freed."""

    def __init__(self, *, root: Path | None = None) -> None:
        try:
            self._fd = unnamed_file(ensure_private_dir(_index_root(root)))
        except OSError:  # marking by name reports it, under the lock, in its words
            self._fd = None
        self._named = False

    def name(self, path: Path, size: int) -> bool:
        """Give the file the name ``path`` (recording ``size``); False when the caller must
        create the marker by name instead (the name is taken, or linking fails here)."""
        if self._fd is None:
            return False
        try:
            if size:
                os.pwrite(self._fd, str(size).encode(), 0)
            if not self._named:  # made before the lock: its age counts from now (marked_within)
                os.utime(self._fd)
            try:
                name_file(self._fd, path)
            except FileNotFoundError:  # the first marker of its index (or `clean` removed it)
                name_file(self._fd, ensure_private_dir(path.parent) / path.name)
        except FileExistsError:
            return False  # this index only (marked again): the others may still use it
        except OSError:
            self.close()  # no linking here: the rest would fail the same way
            return False
        self._named = True
        return True

    def close(self) -> None:
        close_quietly(self._fd)
        self._fd = None

    def __enter__(self) -> Blank:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def mark(
    name: str,
    job_id: str,
    *,
    size: int = 0,
    root: Path | None = None,
    blank: Blank | None = None,
) -> None:
    directory = _dir(name, root)
    if blank is not None and blank.name(directory / job_id, size):
        return
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC
    try:
        fd = os.open(directory / job_id, flags, 0o600)
    except FileNotFoundError:  # the first marker of its kind (or `clean` removed the index)
        fd = os.open(ensure_private_dir(directory) / job_id, flags, 0o600)
    try:
        if size:
            os.write(fd, str(size).encode())
    finally:
        os.close(fd)


# Admission sums the whole queue on every queued submit, under its lock, so each process reads
# a marker once. That holds because a marker records its job's archive size, which never
# changes: a marker made again for the same job records the same number.
_SIZES: dict[str, dict[str, int]] = {}  # directory -> job id -> the size its marker records


def total_size(name: str, *, root: Path | None = None, listed: list[str] | None = None) -> int:
    """The sum of the sizes recorded in the markers of ``name``. ``listed``: its
    :func:`members` as the caller just listed them, so it is not listed again."""
    directory = str(_dir(name, root))
    names = members(name, root=root) if listed is None else listed
    known = _SIZES.get(directory, {})
    current: dict[str, int] = {}
    for job_id in names:
        size = known[job_id] if job_id in known else _read_size(f"{directory}/{job_id}")
        if size is not None:  # None: gone meanwhile, counts nothing
            current[job_id] = size
    _SIZES[directory] = current
    return sum(current.values())


def _read_size(path: str) -> int | None:
    """A marker's recorded size (0 when it holds no number); None when it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        data = os.read(fd, 32)
    finally:
        os.close(fd)
    try:
        return int(data or b"0")
    except ValueError:
        return 0


def last_id(*, root: Path | None = None) -> str | None:
    """The id admission issued last, as :func:`record_last_id` left it (None when unknown)."""
    try:
        with open(_last_id_path(root), "rb") as file:
            text = file.read(64).decode("ascii", "replace").strip()
    except OSError:
        return None
    return text if JOB_ID_PATTERN.fullmatch(text) else None


def record_last_id(job_id: str, *, root: Path | None = None) -> None:
    """Remember the id just issued (under the admission lock), so the next submit need not
    list every job directory to find the newest."""
    path = _last_id_path(root)
    flags = os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC
    try:
        fd = os.open(path, flags, 0o600)
    except FileNotFoundError:
        fd = os.open(ensure_private_dir(path.parent) / path.name, flags, 0o600)
    try:
        data = job_id.encode("ascii")
        os.pwrite(fd, data, 0)
        os.ftruncate(fd, len(data))
    finally:
        os.close(fd)


def _last_id_path(root: Path | None) -> Path:
    return _index_root(root) / "last-id"


def unmark(name: str, job_id: str, *, root: Path | None = None) -> None:
    (_dir(name, root) / job_id).unlink(missing_ok=True)


def members(name: str, *, root: Path | None = None) -> list[str]:
    try:
        names = os.listdir(_dir(name, root))
    except FileNotFoundError:
        return []
    return sorted(n for n in names if JOB_ID_PATTERN.fullmatch(n))


def register(
    job_id: str,
    project_id: str,
    *,
    queued_bytes: int | None = None,
    blank: Blank | None = None,
) -> None:
    """Index a job that is about to be created (before its directory exists, so a crash
    leaves at worst a marker without a job, which readers drop). A :class:`Blank` made
    before a lock lets this make no file under it."""
    size = queued_bytes or 0  # in every marker of a queued job: they may be one file
    mark(OPEN, job_id, size=size, blank=blank)
    mark(project(project_id), job_id, size=size, blank=blank)
    if queued_bytes is not None:
        mark(QUEUE, job_id, size=size, blank=blank)


def forget(job_id: str, project_id: str) -> None:
    """Remove a job from every index (it is gone, or never came to be)."""
    for name in (QUEUE, OPEN, STRANDED, project(project_id)):
        unmark(name, job_id)
    if last_id() == job_id:  # a submit undone: the record goes too (readers then list jobs)
        _last_id_path(None).unlink(missing_ok=True)


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
