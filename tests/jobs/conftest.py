from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from oraculum.jobs import transitions
from oraculum.jobs.ids import new_job_id
from oraculum.jobs.model import Job
from oraculum.jobs.store import JobStore

T0 = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


def job_fields(job_id: str, root: str = "/tmp/jobs") -> dict[str, Any]:
    base = f"{root}/oracle-{job_id}"
    return {
        "project_root": "/tmp/project",
        "project_id": "0123456789abcdef",
        "session_id": "session-1",
        "prompt_path": f"{base}/prompt.md",
        "archive_path": f"{base}/context-{job_id}.tar.zst",
        "response_path": f"{base}/response.md",
        "artifacts_manifest_path": f"{base}/artifacts.json",
        "logs_dir": f"{base}/logs",
        "runtime_id": "rt-1",
        "runtime_profile_dir": "/tmp/runtime/rt-1",
        "selection": {"provider": "chatgpt", "preset": "pro_extended"},
    }


def build_job(queued: bool = False, job_id: str | None = None, at: datetime = T0) -> Job:
    job_id = job_id or new_job_id()
    return transitions.create(
        job_id=job_id, at=at, queued=queued, source="test", fields=job_fields(job_id)
    )


@pytest.fixture
def make_job() -> Callable[..., Job]:
    return build_job


@pytest.fixture
def store(oraculum_home: Path) -> JobStore:
    return JobStore()


@pytest.fixture
def nameless_files_cannot_be_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """As where /proc is missing: every nameless file the job engine made fails to be named,
    so what it makes under a lock must be made by name instead."""
    import errno

    from oraculum.jobs import indexes, locks

    def cannot_name(fd: int, path: Path) -> None:
        raise OSError(errno.ENOENT, "no /proc here")

    for module in (indexes, locks):
        monkeypatch.setattr(module, "name_file", cannot_name)
