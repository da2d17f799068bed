"""`read`: a job's status, response preview, paths, collection gaps and artifacts.

Reading a finished job settles its wake-up: after a reminder went out, any reader settles it;
before the first one, only the job's own session reading it does (anyone else is recorded as
an observation, and the origin session still gets its reminder).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.project import project_id
from oraculum.core.surface import Surface, for_surface
from oraculum.jobs.comparison import comparison_words
from oraculum.jobs.ids import given_job_ref
from oraculum.jobs.locks import RECOLLECT_LOCK, is_locked
from oraculum.jobs.model import Job, Status, utc_now
from oraculum.jobs.process import spawn_worker
from oraculum.jobs.reconcile import reconcile_before_reading
from oraculum.jobs.rules import recollect_refusal
from oraculum.jobs.store import JobStore
from oraculum.service import PREVIEW_CHARS
from oraculum.service.caller import Caller
from oraculum.service.common import TEST_PROVIDER
from oraculum.service.result import plain
from oraculum.service.status import find_job
from oraculum.service.summary import job_summary
from oraculum.sessions import claims

__all__ = [
    "ACTIONS",
    "ReadResult",
    "Recollection",
    "ResponseFile",
    "newest_job",
    "read",
    "recollect",
]

ACTIONS = ("recollect",)


@dataclass(frozen=True)
class ResponseFile:
    """The saved answer: where it is and, once it exists, its length and the part shown."""

    path: Path
    available: bool
    chars: int = 0
    preview: str = ""
    truncated: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": str(self.path), "available": self.available}
        if self.available:
            out.update(chars=self.chars, preview=self.preview, truncated=self.truncated)
        return out


@dataclass(frozen=True)
class Recollection:
    """What `read --recollect` did: started a detached recollection (``pid``), or why not."""

    started: bool
    message: str
    pid: int | None = None

    def to_json(self, surface: Surface = "cli") -> dict[str, Any]:
        out: dict[str, Any] = {"started": self.started}
        if self.pid is not None:
            out["pid"] = self.pid
        out["message"] = for_surface(self.message, surface) or self.message
        return out


@dataclass(frozen=True)
class ReadResult:
    """A job's summary (see service.summary), its saved answer, collection gaps and artifacts."""

    job: dict[str, Any]
    response: ResponseFile
    gaps: dict[str, Any]
    artifacts: list[dict[str, Any]]
    recollection: Recollection | None = None

    def to_json(self, surface: Surface = "cli") -> dict[str, Any]:
        """The documented shape; ``surface`` words the recollection's message for its reader."""
        out: dict[str, Any] = {
            "job": self.job,
            "response": self.response.to_json(),
            "gaps": self.gaps,
            "artifacts": self.artifacts,
        }
        if self.recollection is not None:
            out["recollection"] = self.recollection.to_json(surface)
        return out

    def pending_step(self, surface: Surface) -> str | None:
        """What the reader does about an answer not saved yet: the recollection's word, or
        the job's recollect step (nothing is resent)."""
        if self.recollection is not None:
            return str(self.recollection.to_json(surface)["message"])
        if self.job.get("nextStep"):
            step = f"The answer is not saved yet: run `{self.job['nextStep']}` (nothing is resent)."
            return for_surface(step, surface) or step
        return None

    def text(self, surface: Surface) -> str:
        job, response = self.job, self.response
        lines = [f"Oracle job {job['id']} is {job['status']} ({job['phase']})."]
        if job.get("error"):
            lines.append(f"Error: {job['error']}")
        lines += [
            f"{key}: {plain(value)}" for key, value in self.gaps.items() if key != "comparison"
        ]
        comparison = self.gaps.get("comparison") or {}
        compared = comparison_words(
            job.get("collectionGaps"), [r["path"] for r in comparison.get("responses") or []]
        )
        if compared:
            lines.append(compared)
        step = self.pending_step(surface)
        if step:
            lines.append(step)
        if self.artifacts:
            lines.append(f"Artifacts: {len(self.artifacts)} in {job['artifactsPath']}")
        if not response.available:
            lines.append("Response: not saved yet.")
            return "\n".join(lines)
        lines.append(f"Response ({response.chars} characters, {response.path}):")
        lines += ["", response.preview]
        if response.truncated:
            lines.append(f"… (truncated; the rest is in {response.path})")
        return "\n".join(lines)


def newest_job(store: JobStore, root: Path) -> Job:
    wanted = project_id(root)
    for item in store.iter_jobs(newest_first=True):
        if isinstance(item, Job) and item.project_id == wanted:
            return item
    raise OracleError(
        ErrorCode.JOB_NOT_FOUND,
        "No oracle jobs found for this project.",
        suggested_next_step="Submit one with `oraculum submit` (oracle_submit).",
    )


def _artifacts(job: Job) -> list[dict[str, Any]]:
    manifest = Path(job.artifacts_manifest_path)
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = None
    if isinstance(data, dict) and isinstance(data.get("artifacts"), list):
        return [a for a in data["artifacts"] if isinstance(a, dict)]
    if isinstance(data, list):
        return [a for a in data if isinstance(a, dict)]
    return [{"path": path} for path in job.artifact_paths]


def _gaps(job: Job) -> dict[str, Any]:
    gaps: dict[str, Any] = {}
    if job.collection_status:
        gaps["collectionStatus"] = job.collection_status
    if job.recollection_needed:
        gaps["recollectionNeeded"] = True
    if job.recollection_error:
        gaps["recollectionError"] = job.recollection_error
    capture = Path(job.response_path).with_name("response.capture.json")
    try:
        data = json.loads(capture.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = None
    if isinstance(data, dict):
        for key in ("requiredMissing", "optionalMissing", "gaps"):
            if data.get(key):
                gaps[key] = data[key]
        comparison = _comparison(data.get("comparison"), capture.parent)
        if comparison:
            gaps["comparison"] = comparison
    if job.artifact_failure_count:
        gaps["artifactFailures"] = job.artifact_failure_count
    return gaps


def _comparison(record: Any, job_dir: Path) -> dict[str, Any] | None:
    """A comparison's question and where each candidate answer is saved."""
    if not isinstance(record, dict):
        return None
    responses = [
        {"index": r.get("index"), "path": str(job_dir / r["path"]), "label": r.get("label")}
        for r in record.get("responses") or []
        if isinstance(r, dict) and r.get("path")
    ]
    return {"question": record.get("question"), "responses": responses}


def _response(job: Job, preview_chars: int | None) -> ResponseFile:
    path = Path(job.response_path)
    if not path.exists():
        return ResponseFile(path, False)
    text = path.read_text(encoding="utf-8", errors="replace")
    shown = text if preview_chars is None else text[:preview_chars]
    return ResponseFile(path, True, len(text), shown, len(shown) < len(text))


def read(
    job_ref: str | None = None,
    *,
    caller: Caller | None = None,
    action: str | None = None,
    source: str = "oracle_read",
    preview_chars: int | None = PREVIEW_CHARS,
) -> ReadResult:
    """Status plus the saved answer of one job (default: the project's newest)."""
    caller = caller or Caller()
    job_ref = given_job_ref(job_ref)
    store = caller.store
    if action is not None and action not in ACTIONS:
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            f"Unknown read action: {action}",
            rejected_value=action,
            allowed_values=list(ACTIONS),
        )
    reconcile_before_reading(store)
    job = find_job(store, job_ref) if job_ref is not None else newest_job(store, caller.root)
    recollection = recollect(job, store) if action == "recollect" else None
    session_id = caller.session_id("read", required=False)
    if job.is_terminal:
        settled = claims.settle(
            store,
            job.id,
            source=source,
            session_id=session_id,
            now=utc_now(),
            settle_before_first_attempt=session_id is not None and session_id == job.session_id,
        )
        job = settled or job
    response = _response(job, preview_chars)
    return ReadResult(job_summary(job), response, _gaps(job), _artifacts(job), recollection)


def recollect(job: Job, store: JobStore) -> Recollection:
    """Start re-collecting a job's saved turn, without sending anything: a completed job's, or
    a failed one's whose prompt was accepted (it turns complete if the answer is there).

    The worker's `recollect` entry reopens the job's own conversation in a fresh runtime and
    collects the bound turn again; it runs detached (it drives a browser), so this returns at
    once and the caller reads the job again later.
    """
    if job.provider == TEST_PROVIDER and job.status == Status.COMPLETE:
        message = "A dry-run (test provider) job has no turn to recollect."
        return Recollection(False, message)
    refusal = recollect_refusal(job)
    if refusal is not None:
        raise refusal
    if is_locked(RECOLLECT_LOCK, job.id):
        return Recollection(False, f"A recollection of oracle job {job.id} is running.")
    paths = store.paths(job.id)
    identity = spawn_worker(["recollect", str(paths.dir)], log_path=paths.worker_log)
    message = (
        f"Recollection of oracle job {job.id} started; read the job again in a minute "
        f"(progress in {paths.worker_log}). Nothing is sent to the provider."
    )
    return Recollection(True, message, identity.pid)
