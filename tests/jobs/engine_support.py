"""Shared set-up for engine tests: fast timings, real archives, a way to wait for states."""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from homes import kill_watchdog, watchdog_of, write_fast_config
from oraculum.core.config import Config
from oraculum.jobs.admission import JobRequest
from oraculum.jobs.model import Job
from oraculum.jobs.store import JobStore


def write_global_config(extra: dict[str, Any] | None = None, *, capacity: int = 1) -> Config:
    return write_fast_config(extra, capacity=capacity)


def make_request(
    project: Path,
    config: Config,
    *,
    knobs: dict[str, Any] | None = None,
    prompt: str = "What is the answer?",
    conversation_id: str | None = None,
    session_id: str | None = "s1",
) -> JobRequest:
    token = uuid.uuid4().hex
    staging = project.parent / "staging"
    staging.mkdir(exist_ok=True)
    archive = staging / f"staged-{token}.tar.zst"
    payload = f"archive {token}".encode()
    archive.write_bytes(payload)
    return JobRequest(
        project_root=project,
        prompt=prompt,
        provider="test",
        selection={"provider": "test", **(knobs or {})},
        config=config,
        archive=archive,
        archive_sha256=hashlib.sha256(payload).hexdigest(),
        archive_bytes=len(payload),
        session_id=session_id,
        conversation_id=conversation_id,
    )


__all__ = ["kill_watchdog", "make_request", "wait_for", "watchdog_of", "write_global_config"]


def wait_for(
    store: JobStore, job_id: str, predicate: Callable[[Job], bool], timeout: float = 30.0
) -> Job:
    deadline = time.monotonic() + timeout
    job = store.load(job_id)
    while time.monotonic() < deadline:
        job = store.load(job_id)
        if predicate(job):
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} never reached the state; last: {job.phase} {job.error}")
