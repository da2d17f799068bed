"""Tearing down what a job held: its pre-submit archive, runtime profile and leases.

Teardown is idempotent and safe to run from the worker's `finally`, from cancel, from
reconcile and from clean. Releasing a lease needs no admission lock: removing a capacity token
can only make a concurrent count more generous, never let two jobs take one slot.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from oraculum.core.config import Config
from oraculum.jobs import indexes, leases, transitions
from oraculum.jobs.model import EventKind, Job, utc_now
from oraculum.jobs.process import Liveness, kill_profile_processes, liveness
from oraculum.jobs.rules import cleanup_outcome
from oraculum.jobs.store import JobStore


def worker_liveness(job: Job) -> Liveness | None:
    return None if job.worker is None else liveness(job.worker)


def job_settings_config(job: Job) -> Config:
    """The config a job was admitted with (its snapshot), else today's defaults."""
    return snapshot_config(job.config)


def snapshot_config(snapshot: dict[str, Any], *, known: Config | None = None) -> Config:
    """The config of a job's snapshot (remembered: most jobs share one). Admission calls it
    with the new job's own snapshot before taking its lock, so the promotion pass under the
    lock usually finds the queue head's config ready. ``known``: the config the snapshot was
    just made from, remembered as it is instead of validating the snapshot again (~3 ms of a
    submit, most of it checking its paths on disk)."""
    if not snapshot:
        return Config()
    key = json.dumps(snapshot, sort_keys=True)
    config = _SNAPSHOTS.get(key)
    if config is None:
        # A stored snapshot is validated again: the rules may have moved since it was made.
        config = known if known is not None else Config.from_snapshot(json.loads(key))
        if len(_SNAPSHOTS) >= _SNAPSHOTS_KEPT:
            _SNAPSHOTS.pop(next(iter(_SNAPSHOTS)))
        _SNAPSHOTS[key] = config
    return config


_SNAPSHOTS: dict[str, Config] = {}  # snapshot (canonical JSON) -> its config, oldest first
_SNAPSHOTS_KEPT = 64


def _remove_tree(path: Path, label: str, warnings: list[str]) -> None:
    def on_error(_func: Callable[..., object], failed: str, exc_info: tuple[Any, ...]) -> None:
        warnings.append(f"Failed to remove {label} {failed}: {exc_info[1]}")

    if path.is_symlink() or path.is_file():
        try:
            path.unlink()
        except OSError as exc:
            warnings.append(f"Failed to remove {label} {path}: {exc.strerror}")
        return
    if path.exists():
        shutil.rmtree(path, onerror=on_error)  # onexc needs Python 3.12


PROFILE_REMOVE_ATTEMPTS = 3
PROFILE_REMOVE_PAUSE_S = 0.3


def _remove_profile(profile: Path, warnings: list[str]) -> None:
    """Remove a runtime profile, its browser stopped first. A browser that is still exiting
    (its worker died a moment ago) may write files while they are removed: try again."""
    for attempt in range(PROFILE_REMOVE_ATTEMPTS):
        if not profile.exists():
            return
        attempt_warnings = kill_profile_processes(profile, search=attempt > 0)
        _remove_tree(profile, "runtime profile", attempt_warnings)
        if not profile.exists() or attempt + 1 == PROFILE_REMOVE_ATTEMPTS:
            warnings.extend(attempt_warnings)
            return
        time.sleep(PROFILE_REMOVE_PAUSE_S)


def remove_profile(profile: Path) -> list[str]:
    """Remove a runtime profile no job holds any more; warnings for what could not go."""
    warnings: list[str] = []
    _remove_profile(profile, warnings)
    return warnings


def teardown(job: Job, store: JobStore) -> list[str]:
    """Release everything ``job`` holds; return warnings for what could not be released."""
    warnings: list[str] = []
    store.release_reserve(job.id)  # set aside at submit for its worker's last write
    archive = Path(job.archive_path)
    if job.submitted_at is None:
        # A job that never ran keeps no archive once it is finished.
        if archive.exists() or archive.is_symlink():
            _remove_tree(archive, "queued archive", warnings)
        if archive.exists() or archive.is_symlink():
            indexes.mark(indexes.STRANDED, job.id, size=job.archive_bytes or 1)
        else:
            indexes.unmark(indexes.STRANDED, job.id)
    if job.submitted_at is not None:
        profile = Path(job.runtime_profile_dir)
        expected = job_settings_config(job).browser.runtime_profiles_dir / job.runtime_id
        if profile == expected:
            _remove_profile(profile, warnings)
        else:
            # job.json is only data: never let it steer a recursive delete elsewhere.
            warnings.append(
                f"Refusing to remove runtime profile {profile}: it is not the job's own "
                f"directory under {expected.parent}."
            )
    if job.conversation_id:
        leases.release(leases.CONVERSATION, job.conversation_id, job.id)
    leases.release(leases.RUNTIME, job.runtime_id, job.id)
    return warnings


def record_cleanup(
    store: JobStore, job_id: str, warnings: list[str], *, source: str, at: datetime | None = None
) -> Job:
    """Persist a teardown attempt's outcome on a terminal job."""
    moment = at or utc_now()
    return store.update(
        job_id,
        lambda job: (
            with_cleanup(job, warnings, at=moment, source=source) if job.is_terminal else None
        ),
    )


def with_cleanup(job: Job, warnings: list[str], *, at: datetime, source: str) -> Job:
    """``job`` with a teardown attempt's outcome recorded."""
    message = (
        "Runtime cleanup finished without warnings."
        if not warnings
        else f"Cleanup completed with {len(warnings)} warning(s)."
    )
    return transitions.update(
        job,
        at=at,
        source=source,
        patch=cleanup_outcome(job, warnings, at),
        kind=EventKind.CLEANUP,
        message=message,
    )
