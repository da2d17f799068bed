"""Finished jobs made directly in the store (no worker), for wake-up tests."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from pathlib import Path

from oraculum.core.config import Config
from oraculum.jobs import indexes, transitions
from oraculum.jobs.ids import new_job_id
from oraculum.jobs.model import Job, Phase, utc_now
from oraculum.jobs.store import JobStore


def finished_job(
    store: JobStore,
    project: Path,
    session: str | None,
    *,
    project_id: str | None = None,
    outcome: Phase = Phase.COMPLETE,
    at: datetime | None = None,
    response: str | None = "The answer.\n",
    request_source: str = "cli",
) -> Job:
    from oraculum.core.project import project_id as pid

    job_id = new_job_id()
    paths = store.paths(job_id)
    now = at or utc_now()
    fields = {
        "project_root": str(project),
        "project_id": project_id or pid(project),
        "session_id": session,
        "request_source": request_source,
        "provider": "test",
        "selection": {"provider": "test"},
        "prompt_path": str(paths.prompt),
        "archive_path": str(paths.archive(job_id, "test")),
        "response_path": str(paths.response),
        "artifacts_manifest_path": str(paths.artifacts_manifest),
        "logs_dir": str(paths.logs_dir),
        "runtime_id": uuid.uuid4().hex,
        "runtime_profile_dir": str(project.parent / "runtime" / job_id),
        "config": Config().to_json_dict(),
    }
    job = transitions.create(job_id=job_id, at=now, queued=False, source="test", fields=fields)
    indexes.mark(indexes.OPEN, job_id)
    store.create(job, "question")
    job = transitions.transition(job, Phase.AWAITING_RESPONSE, at=now, source="test")
    error = None if outcome == Phase.COMPLETE else "It failed."
    job = transitions.transition(
        job, outcome, at=now + timedelta(milliseconds=1), source="test", patch={"error": error}
    )
    store.save(job)
    if response is not None and outcome == Phase.COMPLETE:
        paths.response.write_text(response)
    return job
