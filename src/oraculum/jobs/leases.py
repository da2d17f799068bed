"""Runtime and conversation leases: files in the state dir, changed only under the
admission lock.

A runtime lease is a capacity token; a conversation lease keeps two jobs off one provider
thread. A lease does not expire by time: it is live while its owning job still blocks
admission, and whoever next needs the slot drops leases whose owner no longer does.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from oraculum.core.fsio import atomic_write_json, ensure_private_dir
from oraculum.core.paths import state_dir

RUNTIME = "runtime"
CONVERSATION = "conversation"


@dataclass(frozen=True)
class Lease:
    kind: str
    key: str
    job_id: str
    path: Path


def _dir(kind: str, root: Path | None) -> Path:
    return (root or state_dir()) / "leases" / kind


def _path(kind: str, key: str, root: Path | None) -> Path:
    digest = hashlib.sha256(key.encode()).hexdigest()[:32]
    return _dir(kind, root) / f"{digest}.json"


def read_lease(kind: str, key: str, *, root: Path | None = None) -> Lease | None:
    path = _path(kind, key, root)
    try:
        data = json.loads(path.read_text())
        return Lease(kind, data["key"], data["jobId"], path)
    except FileNotFoundError:
        return None
    except (ValueError, KeyError):
        # A torn or foreign file cannot name an owner; treat the slot as free.
        path.unlink(missing_ok=True)
        return None


def list_leases(kind: str, *, root: Path | None = None) -> Iterator[Lease]:
    directory = _dir(kind, root)
    try:
        paths = sorted(directory.iterdir())
    except FileNotFoundError:
        return
    for path in paths:
        if path.suffix != ".json":
            continue
        try:
            data = json.loads(path.read_text())
            yield Lease(kind, data["key"], data["jobId"], path)
        except (FileNotFoundError, ValueError, KeyError):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()


def write_lease(kind: str, key: str, job_id: str, *, root: Path | None = None) -> Lease:
    path = _path(kind, key, root)
    ensure_private_dir(path.parent)
    atomic_write_json(path, {"kind": kind, "key": key, "jobId": job_id})
    return Lease(kind, key, job_id, path)


def release(kind: str, key: str, job_id: str, *, root: Path | None = None) -> None:
    """Drop the lease if ``job_id`` still holds it (never another job's lease)."""
    lease = read_lease(kind, key, root=root)
    if lease is not None and lease.job_id == job_id:
        lease.path.unlink(missing_ok=True)
