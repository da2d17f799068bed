"""The job store: one private directory per job, with `job.json` as the truth.

Readers never take locks (writes are atomic renames); writers of one job serialise on its job
lock, so no update between worker, poller, cancel and reconcile is ever lost. Every write
failure is an OracleError naming the path (`disk_full`, `io_error`: `core.fsio.os_error`).

The store also owns `<jobs dir>/.staging/`, where a submit builds its archive (on the jobs
filesystem, so admission's move is a rename). Each submit works in its own directory named
after its process (pid + start time), so a sweep can tell what a killed submit left behind
from what a live one is still writing.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import os
import re
import secrets
import shutil
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.fsio import (
    DIR_MODE,
    atomic_write_bytes,
    ensure_private_dir,
    fill_private_file,
    fsync_dir,
    fsync_file,
    os_errors,
    write_private_file,
)
from oraculum.core.paths import jobs_dir
from oraculum.core.providers import provider_spec
from oraculum.jobs.ids import (
    JOB_DIR_PREFIX,
    JOB_FILE,
    JOB_ID_PATTERN,
    names_job,
    validate_job_id,
    validate_job_ref,
)
from oraculum.jobs.locks import named_lock
from oraculum.jobs.model import Job, WorkerIdentity
from oraculum.jobs.transitions import check_invariants

PROMPT_FILE = "prompt.md"
JOB_LOCK_TIMEOUT_S = 30.0
AMBIGUOUS_SHOWN = 10  # jobs an ambiguous prefix lists
STAGING_DIR = ".staging"
# `<pid>-<process start time in ms>-<random>`: one submit's staging directory.
_STAGING_OWNER = re.compile(r"^([1-9][0-9]{0,9})-([0-9]{1,16})-[0-9a-f]{8}$")
# Entries without an owner come from versions that recorded none; no submit runs this long.
UNOWNED_STAGING_GRACE_S = 3600.0
# Room set aside in each job's directory at submit (its worker's start makes it for a job
# from before) and given back for the last write of how the job ended, by its worker or by
# the reconcile that finds it dead, so a full disk cannot keep that from being recorded: a
# job.json rewrite (tens of KiB at most) plus the cleanup record and log lines.
SPACE_RESERVE = ".space-reserve"
SPACE_RESERVE_BYTES = 64 * 1024

# The jobs read last, with the bytes they were read from. Admission reads the same few jobs
# (the queue's head, the running jobs) on every submit, under its lock, and parsing and
# validating one costs ~0.15 ms; the same bytes give the same job, so a read whose bytes
# match is answered from here. A job is never changed in place (transitions copy it), so
# the callers sharing one are safe. Oldest-made goes first; each step is one call, atomic
# under the GIL, so threads need no lock.
_RECENT: OrderedDict[str, tuple[bytes, Job]] = OrderedDict()
_RECENT_MAX = 32


@dataclass(frozen=True)
class JobPaths:
    """The fixed layout of one job directory."""

    dir: Path

    @property
    def job_file(self) -> Path:
        return self.dir / JOB_FILE

    @property
    def prompt(self) -> Path:
        return self.dir / PROMPT_FILE

    @property
    def response(self) -> Path:
        return self.dir / "response.md"

    @property
    def artifacts_manifest(self) -> Path:
        return self.dir / "artifacts.json"

    @property
    def artifacts_dir(self) -> Path:
        return self.dir / "artifacts"

    @property
    def logs_dir(self) -> Path:
        return self.dir / "logs"

    @property
    def worker_log(self) -> Path:
        return self.logs_dir / "worker.log"

    @property
    def space_reserve(self) -> Path:
        return self.dir / SPACE_RESERVE

    def archive(self, job_id: str, provider: str) -> Path:
        return self.dir / f"context-{job_id}{provider_spec(provider).archive_suffix}"


class JobStore:
    def __init__(self, root: Path | None = None) -> None:
        self.root = root if root is not None else jobs_dir()

    # Paths -----------------------------------------------------------------------------------

    def paths(self, job_id: str) -> JobPaths:
        return JobPaths(self.root / f"{JOB_DIR_PREFIX}{validate_job_id(job_id)}")

    # Reading ---------------------------------------------------------------------------------

    def list_ids(self) -> list[str]:
        """Every job id on disk, oldest first (ids sort by creation time)."""
        try:
            entries = os.scandir(self.root)
        except FileNotFoundError:
            return []
        with entries:
            ids = [
                entry.name[len(JOB_DIR_PREFIX) :]
                for entry in entries
                if entry.name.startswith(JOB_DIR_PREFIX)
                and JOB_ID_PATTERN.fullmatch(entry.name[len(JOB_DIR_PREFIX) :])
                and entry.is_dir(follow_symlinks=False)
            ]
        ids.sort()
        return ids

    def resolve(self, ref: str) -> str:
        """A full id from a full id, a unique prefix or a unique tail (the short form listings
        show: see :func:`oraculum.jobs.ids.short_id`). Every job of every project counts."""
        ref = validate_job_ref(ref)
        if JOB_ID_PATTERN.fullmatch(ref) and self.paths(ref).dir.is_dir():
            return ref
        matches = [job_id for job_id in self.list_ids() if names_job(ref, job_id)]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise OracleError(
                ErrorCode.JOB_NOT_FOUND,
                f"Oracle job not found: {ref}",
                rejected_value=ref,
                suggested_next_step="Run `oraculum status` to list job ids.",
            )
        shown = matches[-AMBIGUOUS_SHOWN:]  # the newest: the one meant is most likely recent
        more = f" (the newest {len(shown)} listed)" if len(matches) > len(shown) else ""
        raise OracleError(
            ErrorCode.JOB_ID_AMBIGUOUS,
            f"Job id {ref} matches {len(matches)} jobs{more}: {', '.join(shown)}. "
            "Type more characters (a job's last 6 tell it apart: `oraculum status` lists them).",
            rejected_value=ref,
            allowed_values=shown,
            details={"matches": shown, "count": len(matches)},
        )

    def load(self, job_id: str) -> Job:
        path = self.paths(job_id).job_file
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            raise OracleError(
                ErrorCode.JOB_NOT_FOUND,
                f"Oracle job not found: {job_id}",
                rejected_value=job_id,
                suggested_next_step="Run `oraculum status` to list job ids.",
            ) from None
        except OSError as exc:
            raise OracleError(
                ErrorCode.JOB_CORRUPT,
                f"Job file {path} cannot be read: {exc.strerror}",
                rejected_value=str(path),
                suggested_next_step="Inspect or remove that job directory; other jobs are "
                "unaffected.",
            ) from None
        key = str(path)
        known = _RECENT.get(key)
        if known is not None and known[0] == raw:
            return known[1]
        try:
            job = Job.model_validate(json.loads(raw))
            if job.id != job_id:
                raise ValueError(f"it records id {job.id!r}")
            job = check_invariants(job)
        except (ValueError, ValidationError, OracleError) as exc:
            raise OracleError(
                ErrorCode.JOB_CORRUPT,
                f"Job file {path} is unreadable or invalid: {_first_line(exc)}",
                rejected_value=str(path),
                suggested_next_step="Inspect or remove that job directory; other jobs are "
                "unaffected.",
            ) from None
        _RECENT[key] = (raw, job)
        if len(_RECENT) > _RECENT_MAX:
            _RECENT.popitem(last=False)
        return job

    def iter_jobs(self, *, newest_first: bool = True) -> Iterator[Job | OracleError]:
        """Every job, with corrupt ones reported in place rather than stopping the walk."""
        ids = self.list_ids()
        for job_id in reversed(ids) if newest_first else ids:
            try:
                yield self.load(job_id)
            except OracleError as error:
                if error.code != ErrorCode.JOB_NOT_FOUND:  # removed between listing and reading
                    yield error

    # Writing ---------------------------------------------------------------------------------

    def create(self, job: Job, prompt: str, *, sync: bool = True) -> JobPaths:
        """Create the job directory with `prompt.md` and `job.json` (:meth:`prepare`, then
        :meth:`adopt`); on any failure nothing of it remains (no half-written job)."""
        prepared = self.prepare(prompt)
        try:
            return self.adopt(job, prepared, sync=sync)
        except BaseException:
            discard_prepared(prepared)
            raise

    def prepare(self, prompt: str) -> Path:
        """A job directory built before its job has an id: `prompt.md` and an empty
        `job.json`, in a staging directory named after this process (so a sweep removes it
        should the submit be killed). :meth:`adopt` makes it a job; :func:`discard_prepared`
        removes it. `logs/` is made by whoever first writes there (the worker's start).

        Admission prepares outside its lock and adopts under it, so making the directory's
        files (each a new inode: the slow part of creating a file) and writing the prompt do
        not lengthen the time other submits wait."""
        area = self._new_staging_dir()
        try:
            write_private_file(area / PROMPT_FILE, prompt.encode("utf-8"))
            write_private_file(area / JOB_FILE, b"")  # filled by adopt
            # The room its worker's last write may need: a submit on a disk too full for it
            # is refused `disk_full` here instead of starting a job that could not end.
            write_private_file(area / SPACE_RESERVE, bytes(SPACE_RESERVE_BYTES))
        except BaseException:
            discard_prepared(area)
            raise
        return area

    def adopt(self, job: Job, prepared: Path, *, sync: bool = True) -> JobPaths:
        """Write `job.json` into a :meth:`prepare`d directory and rename it into place, so
        readers see the whole job or none of it. An existing job directory is never
        overwritten (``FileExistsError``: an id collision). With ``sync=False`` the caller
        makes it durable later with :meth:`sync_created` (admission does, once its lock is
        released, so concurrent submits do not queue behind each other's fsyncs). On failure
        the prepared directory stays the caller's to discard."""
        paths = self.paths(job.id)
        data = check_invariants(job).to_json_bytes()
        fill_private_file(prepared / JOB_FILE, data)  # not yet visible: no temp file needed
        if paths.dir.exists():
            raise FileExistsError(errno.EEXIST, "job directory exists", str(paths.dir))
        with os_errors(paths.dir, action="create"):
            os.rename(prepared, paths.dir)
        if sync:
            self.sync_created(job.id)
        return paths

    def sync_created(self, job_id: str) -> None:
        """Make a job written by ``create(..., sync=False)`` durable: `job.json`, then its
        directory entry."""
        paths = self.paths(job_id)
        with os_errors(paths.job_file, action="sync"):
            fsync_file(paths.job_file)
            fsync_dir(paths.dir)

    def save(self, job: Job, *, sync: bool = True) -> None:
        atomic_write_bytes(self.paths(job.id).job_file, job.to_json_bytes(), sync=sync)

    def update(
        self,
        job_id: str,
        change: Callable[[Job], Job | None],
        *,
        timeout: float = JOB_LOCK_TIMEOUT_S,
    ) -> Job:
        """Read-modify-write under the job lock. ``change`` returns the new job, or None to
        leave it as it is."""
        with named_lock("job", validate_job_id(job_id), timeout=timeout):
            current = self.load(job_id)
            changed = change(current)
            if changed is None or changed == current:
                return current
            if changed.id != job_id:
                raise OracleError(
                    ErrorCode.INVALID_TRANSITION, "A job update cannot change the job id."
                )
            self.save(check_invariants(changed))
            return changed

    # Space reserve ---------------------------------------------------------------------------

    def reserve_space(self, job_id: str) -> None:
        """Set :data:`SPACE_RESERVE_BYTES` aside in the job directory (written, so really
        allocated); when even that does not fit, the write's error (`disk_full`…) is raised
        and nothing is left of it."""
        with contextlib.suppress(FileExistsError):
            write_private_file(self.paths(job_id).space_reserve, bytes(SPACE_RESERVE_BYTES))

    def release_reserve(self, job_id: str) -> bool:
        """Give the reserved space back; True when there was a reserve to give."""
        try:
            self.paths(job_id).space_reserve.unlink()
        except FileNotFoundError:
            return False
        return True

    # Staging ---------------------------------------------------------------------------------

    @property
    def staging_root(self) -> Path:
        return self.root / STAGING_DIR

    @contextlib.contextmanager
    def staging_area(self) -> Iterator[Path]:
        """A private directory for one submit's archive, removed when the block ends."""
        area = self._new_staging_dir()
        try:
            yield area
        finally:
            shutil.rmtree(area, ignore_errors=True)

    def _new_staging_dir(self) -> Path:
        """A fresh private directory in the staging area, named after this process."""
        area = self.staging_root / _staging_name(os.getpid())
        with os_errors(area, action="create"):
            ensure_private_dir(self.staging_root)
            area.mkdir(mode=DIR_MODE)
        return area

    def stale_staging(self, *, now: float | None = None) -> list[Path]:
        """What killed submits left in the staging directory (read-only: `doctor` reports it)."""
        try:
            with os.scandir(self.staging_root) as listing:
                entries = list(listing)
        except FileNotFoundError:
            return []
        moment = time.time() if now is None else now
        return [Path(e.path) for e in entries if _staging_entry_is_stale(e, moment)]

    def sweep_staging(self, *, now: float | None = None) -> list[str]:
        """Remove what killed submits left in the staging directory; returns the names removed."""
        removed = []
        for path in self.stale_staging(now=now):
            _remove_entry(path)
            removed.append(path.name)
        return removed


def discard_prepared(prepared: Path) -> None:
    """Remove a :meth:`JobStore.prepare`d directory (nothing, once adopted: it moved)."""
    shutil.rmtree(prepared, ignore_errors=True)


def _staging_name(pid: int) -> str:
    return f"{pid}-{round(_start_time(pid) * 1000)}-{secrets.token_hex(4)}"


@functools.cache
def _start_time(pid: int) -> float:
    # Keyed by pid, so a forked child asks again. jobs.process loads psutil on first use.
    from oraculum.jobs.process import process_start_time

    started = process_start_time(pid)
    if started is None:  # cannot happen for ourselves; an owner no sweep can match is safer
        raise OracleError(ErrorCode.IO_ERROR, f"Cannot read the start time of process {pid}.")
    return started


def staging_owner(name: str) -> WorkerIdentity | None:
    """The process a staging entry belongs to, from its name; None for an unowned entry."""
    match = _STAGING_OWNER.fullmatch(name)
    if match is None:
        return None
    return WorkerIdentity(pid=int(match[1]), start_time=int(match[2]) / 1000, nonce="")


def _staging_entry_is_stale(entry: os.DirEntry[str], now: float) -> bool:
    from oraculum.jobs.process import Liveness, liveness

    owner = staging_owner(entry.name)
    if owner is not None and entry.is_dir(follow_symlinks=False):
        # Another process on the recorded pid (MISMATCH) means the owner is gone too.
        return liveness(owner) != Liveness.ALIVE
    try:
        age = now - entry.stat(follow_symlinks=False).st_mtime
    except FileNotFoundError:
        return False
    return age > UNOWNED_STAGING_GRACE_S


def _remove_entry(path: Path) -> None:
    # Best effort: a sweep never stands in the way of the submit or clean that runs it.
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
