"""Shared set-up for engine tests: fast timings, real archives, a way to wait for states."""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from oraculum.core.config import Config, load_config
from oraculum.core.paths import global_config_path
from oraculum.jobs.admission import JobRequest
from oraculum.jobs.model import Job
from oraculum.jobs.store import JobStore

FAST = {
    "worker": {
        "heartbeatIntervalMs": 200,
        "staleHeartbeatMs": 3000,
        "noWorkerGraceMs": 1000,
        "terminateGraceMs": 1000,
    },
}


def write_global_config(extra: dict[str, Any] | None = None, *, capacity: int = 1) -> Config:
    data = json.loads(json.dumps(FAST))
    data["browser"] = {"maxConcurrentJobs": capacity}
    for section, values in (extra or {}).items():
        data.setdefault(section, {}).update(values)
    path = global_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return load_config().config


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
