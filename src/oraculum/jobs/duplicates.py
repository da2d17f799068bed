"""The duplicate guard: one request (prompt, archive, provider, preset, thread) is sent once
while an identical job is still queued or running.

An agent whose client timed out retries the same submit; without this it would send the
question twice. The digest is recorded on each job and compared by admission under its lock,
so two concurrent identical submits cannot both pass.
"""

from __future__ import annotations

import hashlib
import json

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.jobs import indexes, leases
from oraculum.jobs.model import Job, JobSelection
from oraculum.jobs.store import JobStore


def submission_digest(
    prompt: str,
    archive_sha256: str,
    provider: str,
    selection: JobSelection,
    *,
    thread: str | None = None,
) -> str:
    """What makes two submits the same request: the prompt, the archive's content, the provider
    and its preset (ChatGPT) or mode (Grok), and the thread continued (a follow-up's job or
    conversation; the same question in another thread is another request)."""
    key = {
        "prompt": prompt,
        "archiveSha256": archive_sha256,
        "provider": provider,
        "preset": selection.preset or selection.mode,
        "thread": thread,
    }
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode("utf-8")).hexdigest()


def find_duplicate(store: JobStore, digest: str) -> Job | None:
    """A queued or running job with ``digest``: the jobs holding a runtime lease (admitted,
    not ended) and those in the queue. Read-only; admission calls it under its lock."""
    candidates = [lease.job_id for lease in leases.list_leases(leases.RUNTIME)]
    candidates += indexes.members(indexes.QUEUE)
    for job_id in dict.fromkeys(candidates):
        try:
            job = store.load(job_id)
        except OracleError:
            continue
        if job.submission_digest == digest and not job.is_terminal:
            return job
    return None


def duplicate_error(existing: Job) -> OracleError:
    return OracleError(
        ErrorCode.DUPLICATE_JOB,
        f"An identical oracle job {existing.id} is already {existing.status.value} (same "
        "prompt, archive, provider and preset); nothing was sent again.",
        rejected_value=existing.id,
        suggested_next_step=(
            f"Wait for it with `oraculum wait {existing.id}` and read it with "
            f"`oraculum read {existing.id}`; to send it again anyway, pass --force "
            "(MCP: force: true)."
        ),
        details={"jobId": existing.id, "status": existing.status.value},
    )
