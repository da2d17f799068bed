"""Building the archive a job uploads: selection, compression, ceiling, pruning, timeout.

The archive is written to a private temporary file in the destination directory and renamed into
place only when it is complete and under the ceiling; on any failure or timeout the temporary
file is removed. The whole build runs on a worker thread so that the timeout holds even if a
read blocks (a hung network filesystem): the caller gets ``archive_timeout`` on time and the
abandoned thread can never publish its file.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, BinaryIO, Literal, NamedTuple, cast

from oraculum.archive import prune
from oraculum.archive.exclusions import prune_candidate
from oraculum.archive.git import SelectionTimeout
from oraculum.archive.inputs import display
from oraculum.archive.selection import (
    Entry,
    Selection,
    empty_selection_error,
    stream_entries,
)
from oraculum.archive.writeback import WritebackFile
from oraculum.archive.writer import ContentCheck, WriteStats, WriteTimeout, write_archive
from oraculum.core.errors import ErrorCode, OracleError, failed
from oraculum.core.fsio import DISK_FULL_ERRNOS, fsync_dir, os_error
from oraculum.core.providers import provider_spec

MIB = 1024 * 1024
DEFAULT_ZSTD_LEVEL = 3
DEFAULT_GZIP_LEVEL = 6
DEFAULT_TIMEOUT_S = 120.0

_JOB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


class PrunedPath(NamedTuple):
    path: str
    bytes: int
    files: int
    estimated_compressed_bytes: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "relativePath": display(self.path),
            "bytes": self.bytes,
            "files": self.files,
            "estimatedCompressedBytes": self.estimated_compressed_bytes,
        }


class ArchiveResult(NamedTuple):
    path: Path
    sha256: str
    size: int
    provider: str
    limit_bytes: int
    file_count: int  # archive members: regular files plus symlinks
    symlink_count: int
    uncompressed_bytes: int  # file contents
    tar_bytes: int  # the tar stream before compression
    whole_repo: bool
    source: Literal["git", "walk"]
    pruned_paths: list[PrunedPath]
    initial_size: int | None  # the first, oversize attempt when pruning happened
    excluded: list[dict[str, Any]]
    skipped: list[dict[str, str]]
    elapsed_s: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "sha256": self.sha256,
            "archiveBytes": self.size,
            "provider": self.provider,
            "limitBytes": self.limit_bytes,
            "fileCount": self.file_count,
            "symlinkCount": self.symlink_count,
            "uncompressedBytes": self.uncompressed_bytes,
            "tarBytes": self.tar_bytes,
            "wholeRepo": self.whole_repo,
            "source": self.source,
            "autoPrunedArchivePaths": [p.to_dict() for p in self.pruned_paths],
            "initialArchiveBytes": self.initial_size,
            "excluded": self.excluded,
            "skipped": self.skipped,
            "elapsedSeconds": round(self.elapsed_s, 3),
        }


def archive_filename(job_id: str, provider: str) -> str:
    return f"context-{job_id}{provider_spec(provider).archive_suffix}"


def _zstd_threads(threads: int) -> int:
    # 0 means "all cores" here (python-zstandard's -1); python-zstandard's own 0 means
    # "compress on the calling thread", which would serialise reading and compressing.
    return -1 if threads <= 0 else threads


def build_archive(
    project_root: Path,
    inputs: list[str],
    dest_dir: Path,
    job_id: str,
    provider: str,
    *,
    level: int = DEFAULT_ZSTD_LEVEL,
    threads: int = 0,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    max_bytes: int | None = None,
    gzip_level: int = DEFAULT_GZIP_LEVEL,
    filename: str | None = None,
    fsync: bool = True,
    include_git_dir: bool = False,
    progress: Callable[[int], None] | None = None,
) -> ArchiveResult:
    """Build ``dest_dir/context-<job_id>.tar.zst`` (ChatGPT) or ``.tar.gz`` (Grok).

    ``level`` is the zstd level, ``gzip_level`` the gzip one; ``threads`` 0 uses every core.
    ``max_bytes`` overrides the provider ceiling. A whole-repository archive (``["."]``) over the
    ceiling is pruned of generated-output directories; anything else over it raises the
    retryable ``archive_too_large``. ``filename`` overrides the archive's file name.
    ``include_git_dir`` allows naming `.git` (refused with ``archive_input_git_dir`` otherwise).
    An archive that would hold no member at all is refused with ``archive_empty``.
    ``progress`` is told, every few hundred entries, how many the selection has looked at.
    """
    spec = provider_spec(provider)  # the provider's archive format and ceiling
    final = Path(dest_dir) / _checked_name(job_id, provider, filename)
    tmp = final.with_name(f".{final.name}.{os.urandom(6).hex()}.tmp")
    job = _Build(
        project_root=Path(project_root),
        inputs=list(inputs),
        final=final,
        tmp=tmp,
        provider=spec.name,
        compression=spec.archive_compression,
        level=level if spec.archive_compression == "zstd" else gzip_level,
        threads=_zstd_threads(threads),
        limit=max_bytes if max_bytes is not None else spec.max_archive_bytes,
        deadline=time.monotonic() + timeout_s,
        timeout_s=timeout_s,
        fsync=fsync,
        include_git_dir=include_git_dir,
        progress=progress,
    )
    return _run_bounded(job, job_id, timeout_s)


def _checked_name(job_id: str, provider: str, filename: str | None) -> str:
    """The archive's file name, after checking the job id and any given name."""
    if not _JOB_ID.fullmatch(job_id):
        raise OracleError(
            ErrorCode.INVALID_JOB_ID, f"Invalid job id: {job_id!r}", rejected_value=job_id
        )
    name = filename or archive_filename(job_id, provider)
    if "/" in name or name.startswith("."):
        raise OracleError(ErrorCode.INVALID_ARGUMENT, f"Invalid archive file name: {name!r}")
    return name


def _run_bounded(job: _Build, job_id: str, timeout_s: float) -> ArchiveResult:
    """Run the build on its own thread and give up on it at the timeout."""
    worker = threading.Thread(target=job.run, name=f"archive-{job_id}", daemon=True)
    worker.start()
    # A little grace over the deadline: the worker checks it itself between entries and chunks
    # and cleans up after itself; the join timeout only catches a worker stuck in a syscall.
    worker.join(timeout_s + 0.25)
    if worker.is_alive():
        job.abandon()
        raise _timeout_error(timeout_s)
    if job.error is not None:
        raise job.error
    assert job.result is not None
    return job.result


def _timeout_error(timeout_s: float) -> OracleError:
    return OracleError(
        ErrorCode.ARCHIVE_TIMEOUT,
        f"Oracle archive timed out after {round(timeout_s * 1000)}ms",
        retryable=True,
        suggested_next_step=(
            "Archive fewer or smaller paths, or raise archive.timeoutMs in the config."
        ),
        details={"timeoutMs": round(timeout_s * 1000)},
    )


class _Build:
    """One build, run on its own thread: what to archive and how, and how it ended (``result``
    or ``error``, set by :meth:`run`)."""

    def __init__(
        self,
        *,
        project_root: Path,
        inputs: list[str],
        final: Path,
        tmp: Path,
        provider: str,
        compression: str,
        level: int,
        threads: int,
        limit: int,
        deadline: float,
        timeout_s: float,
        fsync: bool,
        include_git_dir: bool,
        progress: Callable[[int], None] | None,
    ) -> None:
        self.project_root = project_root
        self.inputs = inputs
        self.final = final
        self.tmp = tmp
        self.provider = provider
        self.compression = compression
        self.level = level
        self.threads = threads
        self.limit = limit
        self.deadline = deadline
        self.timeout_s = timeout_s
        self.fsync = fsync
        self.include_git_dir = include_git_dir
        self.progress = progress
        self.result: ArchiveResult | None = None
        self.error: BaseException | None = None
        self.cancel = threading.Event()
        self._lock = threading.Lock()
        self._published = False

    def abandon(self) -> None:
        """Called by the waiting caller on timeout: the file must never appear."""
        with self._lock:
            self.cancel.set()
            for path in (self.tmp, self.final) if self._published else (self.tmp,):
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()

    def run(self) -> None:
        started = time.monotonic()
        try:
            self.result = self._run(started)
        except (SelectionTimeout, WriteTimeout):
            self.error = _timeout_error(self.timeout_s)
        except OracleError as exc:
            self.error = exc
        except OSError as exc:
            self.error = (
                os_error(exc, self.final, action="write the archive")  # free space, retry
                if exc.errno in DISK_FULL_ERRNOS
                else OracleError(
                    ErrorCode.ARCHIVE_FAILED,
                    f"Oracle archive failed: {exc}",
                    suggested_next_step="Check that the project is readable and the jobs dir "
                    "writable.",
                )
            )
        except Exception as exc:  # e.g. a zstd error: the stable fallback code, never lost
            self.error = failed("archive", exc)
        except BaseException as exc:  # surfaced to the caller, never lost on the thread
            self.error = exc
        finally:
            if not self._published:
                with contextlib.suppress(FileNotFoundError):
                    self.tmp.unlink()

    def _write(
        self,
        entries: Iterable[Entry],
        measure: set[int],
        opened: Callable[[Entry], int] | None = None,
        check: ContentCheck | None = None,
    ) -> WriteStats:
        fd = os.open(self.tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "wb", buffering=1 << 20) as raw:
            # A durable archive is written back as it grows, so the fsync below waits only
            # for the tail (see writeback.py).
            out = WritebackFile(raw) if self.fsync else None
            try:
                stats = write_archive(
                    str(self.project_root),
                    entries,
                    cast(BinaryIO, out) if out is not None else raw,
                    compression=self.compression,
                    level=self.level,
                    threads=self.threads,
                    measure_at=measure,
                    deadline=self.deadline,
                    cancel=self.cancel,
                    opened=opened,
                    check=check,
                )
                raw.flush()
            except BaseException:
                if out is not None:  # joins the helper before the descriptor goes
                    with contextlib.suppress(OSError):  # the first error is the one to report
                        out.close()
                raise
            if out is not None:
                out.close()
            if self.fsync:
                os.fsync(raw.fileno())
        return stats

    def _run(self, started: float) -> ArchiveResult:
        stream = stream_entries(
            self.project_root,
            self.inputs,
            deadline=self.deadline,
            open_files=True,
            include_git_dir=self.include_git_dir,
            progress=self.progress,
        )
        try:
            # One pass finds the files and compresses them as they are found; a file the
            # selection opened to see what it is is read through that same descriptor, and one
            # that cannot be opened leaves the selection (reported as skipped), as in --list.
            # A small file's content is checked for credentials in the writer's buffer.
            stats = self._write(stream, set(), stream.open_member, stream.check_content)
        finally:
            stream.close()
        selection = stream.selection()
        if not selection.entries:
            raise empty_selection_error(selection)
        entries = selection.entries
        initial_size = stats.size
        pruned: list[prune.Sized] = []
        if stats.size >= self.limit:
            # Over the ceiling: the sizes of the biggest groups are needed, so build again with
            # the compressor flushed around them.
            stats = self._write(entries, _measure_points(entries, selection.whole_repo))
        while stats.size >= self.limit:
            candidates = (
                prune.sized(prune.candidate_groups(entries), stats.offsets, stats.points)
                if selection.whole_repo
                else []
            )
            plan = prune.plan_prune(candidates, stats.size, self.limit) if candidates else None
            if not plan:
                shortfall = None
                if candidates:
                    shortfall = stats.size - sum(c.compressed for c in candidates)
                raise self._too_large(entries, stats, pruned, candidates, shortfall)
            drop = {c.path for c in plan}
            entries = [e for e in entries if prune_key(e) not in drop]
            pruned += plan
            stats = self._write(entries, _measure_points(entries, selection.whole_repo))
        return self._publish(selection, entries, stats, pruned, initial_size, started)

    def _publish(
        self,
        selection: Selection,
        entries: list[Entry],
        stats: WriteStats,
        pruned: list[prune.Sized],
        initial_size: int,
        started: float,
    ) -> ArchiveResult:
        written = [e for e, ok in zip(entries, stats.written, strict=True) if ok]
        if not written:  # every file went unreadable between the passes
            raise empty_selection_error(selection)
        with self._lock:
            if self.cancel.is_set():
                raise WriteTimeout
            os.replace(self.tmp, self.final)
            self._published = True
        if self.fsync:
            fsync_dir(self.final.parent)  # the rename itself survives a crash
        skipped = selection.skipped_dicts() + [
            {"path": display(p), "reason": r} for p, r in stats.skipped
        ]
        return ArchiveResult(
            path=self.final,
            sha256=stats.sha256,
            size=stats.size,
            provider=self.provider,
            limit_bytes=self.limit,
            file_count=len(written),
            symlink_count=sum(1 for e in written if e.kind == "symlink"),
            uncompressed_bytes=sum(e.size for e in written),
            tar_bytes=stats.tar_bytes,
            whole_repo=selection.whole_repo,
            source=selection.source,
            pruned_paths=[PrunedPath(p.path, p.bytes, p.files, p.compressed) for p in pruned],
            initial_size=initial_size if pruned else None,
            excluded=selection.excluded_summary(),
            skipped=skipped,
            elapsed_s=time.monotonic() - started,
        )

    def _too_large(
        self,
        entries: list[Entry],
        stats: WriteStats,
        pruned: list[prune.Sized],
        remaining: list[prune.Sized],
        shortfall: int | None,
    ) -> OracleError:
        top = prune.sized(
            prune.group_entries(entries, prune.top_level_key), stats.offsets, stats.points
        )
        top_sorted = sorted(top, key=lambda s: (-s.bytes, s.path))
        remaining_sorted = sorted(remaining, key=lambda s: (-s.bytes, s.path))
        message = prune.too_large_message(
            provider_label=provider_spec(self.provider).label,
            size=stats.size,
            limit=self.limit,
            pruned=pruned,
            top_level=top_sorted,
            remaining=remaining_sorted,
            prune_shortfall=shortfall,
        )
        return OracleError(
            ErrorCode.ARCHIVE_TOO_LARGE,
            message,
            retryable=True,
            suggested_next_step=(
                "Retry with narrower inputs: " + "; ".join(prune.RETRY_ORDER) + "."
            ),
            details={
                "provider": self.provider,
                "sizeBytes": stats.size,
                "limitBytes": self.limit,
                "prunedPaths": [p.to_dict() for p in pruned],
                "topLevelEntries": [t.to_dict() for t in top_sorted[:20]],
                "remainingCandidates": [c.to_dict() for c in remaining_sorted[:20]],
                "estimatedSizeAfterPruningAll": shortfall,
                "recommendedRetryOrder": list(prune.RETRY_ORDER),
            },
        )


def _measure_points(entries: list[Entry], whole_repo: bool) -> set[int]:
    """Where to flush so the top-level entries' (and prune candidates') compressed sizes can be
    read off one pass."""
    groups = prune.group_entries(entries, prune.top_level_key)
    if whole_repo:
        groups += prune.candidate_groups(entries)
    return prune.measure_points(groups)


def prune_key(entry: Entry) -> str | None:
    return prune_candidate(entry.path.split("/"))
