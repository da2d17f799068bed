"""Helpers for capture tests: real jobs in a real store, and a persist callback over it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from oraculum.core.config import Config
from oraculum.jobs import transitions
from oraculum.jobs.ids import new_job_id
from oraculum.jobs.model import Job, Phase, PromptSendState, utc_now
from oraculum.jobs.store import JobPaths, JobStore

# The archive a seeded conversation's first question shows (tests/capture/conftest.py).
SEEDED_ARCHIVE = "context-seeded.tar.zst"


def make_job(
    root: Path,
    *,
    conversation_id: str | None,
    chat_url: str | None,
    config: Config | None = None,
    complete: bool = False,
    archive_name: str | None = None,
    **fields: Any,
) -> tuple[JobStore, Job, JobPaths]:
    """A job that has sent its prompt and is waiting for (or has finished) its answer.

    Its archive is ``context-<id>.tar.zst`` unless ``archive_name`` names another."""
    store = JobStore(root / "jobs")
    job_id = new_job_id()
    base = store.paths(job_id).dir
    now = utc_now()
    job = transitions.create(
        job_id=job_id,
        at=now,
        queued=False,
        source="test",
        fields={
            "project_root": str(root),
            "project_id": "0123456789abcdef",
            "prompt_path": str(base / "prompt.md"),
            "archive_path": str(base / (archive_name or f"context-{job_id}.tar.zst")),
            "response_path": str(base / "response.md"),
            "artifacts_manifest_path": str(base / "artifacts.json"),
            "logs_dir": str(base / "logs"),
            "runtime_id": f"rt-{job_id}",
            "runtime_profile_dir": str(root / "runtime" / f"rt-{job_id}"),
            "config": config.to_json_dict() if config is not None else {},
        },
    )
    job = transitions.transition(
        job,
        Phase.AWAITING_RESPONSE,
        at=now,
        source="test",
        patch={
            "conversation_id": conversation_id,
            "chat_url": chat_url,
            "prompt_send_state": PromptSendState.ACCEPTED,
            **fields,
        },
    )
    if complete:
        job = transitions.transition(job, Phase.COMPLETE, at=utc_now(), source="test")
    paths = store.create(job, "prompt")
    return store, job, paths


class Persist:
    """The driver's `persist(patch)`: writes through the store, remembers every patch."""

    def __init__(self, store: JobStore, job_id: str) -> None:
        self.store = store
        self.job_id = job_id
        self.patches: list[dict[str, Any]] = []

    async def __call__(self, patch: dict[str, Any]) -> Job:
        self.patches.append(dict(patch))
        now = utc_now()
        return await asyncio.to_thread(
            self.store.update,
            self.job_id,
            lambda job: transitions.update(job, at=now, source="test", patch=patch),
        )

    def finish(self, patch: dict[str, Any]) -> Job:
        now = utc_now()
        return self.store.update(
            self.job_id, lambda job: transitions.update(job, at=now, source="test", patch=patch)
        )
