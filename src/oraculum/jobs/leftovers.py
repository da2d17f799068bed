"""What a killed job can leave on disk once its job has ended: a runtime profile nobody owns
and the `.space-reserve` its worker set aside. The periodic reconcile removes both; `doctor`
reports any it finds.

A runtime profile is a job's (named by its runtime id), a recollection's (``<runtime
id>-recollect-<hex>``) or doctor's throwaway (``doctor-…``). It is left over when no live
runtime lease names it, no process runs a browser on it, and it has not been touched for
:data:`ORPHAN_AGE_S` (a recollection clones its profile before any browser runs on it).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable
from pathlib import Path

from oraculum.core.errors import OracleError
from oraculum.jobs import indexes
from oraculum.jobs.store import JobStore

ORPHAN_AGE_S = 600.0


def profile_owner(name: str) -> str:
    """The runtime id a profile directory belongs to (a recollection's carries it first)."""
    return name.split("-recollect-", 1)[0]


def orphan_candidates(
    entries: Iterable[tuple[str, float]], live_runtime_ids: set[str], now: float, min_age_s: float
) -> list[str]:
    """The names among ``entries`` (name, last change) that no live lease holds and that have
    been left alone for ``min_age_s``."""
    return sorted(
        name
        for name, changed in entries
        if profile_owner(name) not in live_runtime_ids and now - changed >= min_age_s
    )


def _entries(runtime_dir: Path) -> list[tuple[str, float]]:
    found = []
    try:
        with os.scandir(runtime_dir) as listing:
            for entry in listing:
                with contextlib.suppress(OSError):
                    if entry.is_dir(follow_symlinks=False):
                        found.append((entry.name, entry.stat(follow_symlinks=False).st_mtime))
    except (FileNotFoundError, NotADirectoryError):
        return []
    return found


def _browsers_on(profiles: list[Path]) -> set[Path]:
    """Which of ``profiles`` a running process of ours was started on (``--user-data-dir``)."""
    if not profiles:
        return set()
    import psutil

    flags = {f"--user-data-dir={p}": p for p in profiles}
    busy: set[Path] = set()
    uid = os.getuid()
    for proc in psutil.process_iter(["uids", "cmdline"]):
        try:
            if proc.info["uids"] is None or proc.info["uids"].real != uid:
                continue
            busy.update(flags[arg] for arg in proc.info["cmdline"] or () if arg in flags)
        except (psutil.Error, TypeError):
            continue
    return busy


def orphan_profiles(
    store: JobStore, runtime_dir: Path, *, min_age_s: float = ORPHAN_AGE_S
) -> list[Path]:
    """Runtime profiles under ``runtime_dir`` that no job, recollection or browser uses."""
    from oraculum.jobs.admission import live_runtime_leases

    entries = _entries(runtime_dir)
    if not entries:
        return []
    live = {lease.key for lease in live_runtime_leases(store, prune=False)}
    names = orphan_candidates(entries, live, time.time(), min_age_s)
    candidates = [runtime_dir / name for name in names]
    busy = _browsers_on(candidates)
    return [path for path in candidates if path not in busy]


def stray_reserves(store: JobStore) -> list[Path]:
    """`.space-reserve` files of jobs that no longer run (a running worker keeps its own)."""
    watched = set(indexes.members(indexes.OPEN))
    strays = []
    for job_id in store.list_ids():
        reserve = store.paths(job_id).space_reserve
        if not reserve.exists():
            continue
        if job_id in watched and _still_running(store, job_id):
            continue
        strays.append(reserve)
    return strays


def _still_running(store: JobStore, job_id: str) -> bool:
    from oraculum.jobs.process import Liveness
    from oraculum.jobs.runtime import worker_liveness

    try:
        job = store.load(job_id)
    except OracleError:
        return True  # not ours to judge: status reports an unreadable job
    return job.is_active or worker_liveness(job) == Liveness.ALIVE


def remove_orphan_profiles(store: JobStore, runtime_dir: Path) -> list[Path]:
    """Remove the left-over runtime profiles; returns those removed."""
    from oraculum.jobs.runtime import remove_profile

    removed = []
    for profile in orphan_profiles(store, runtime_dir):
        if not remove_profile(profile):
            removed.append(profile)
    return removed
