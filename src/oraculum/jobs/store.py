"""The job store: one private directory per job, with `job.json` as the truth.

Readers never take locks (writes are atomic renames); writers of one job serialise on its job
lock, so no update between worker, poller, cancel and reconcile is ever lost.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from oraculum.core.errors import OracleError
from oraculum.core.fsio import atomic_write_json, ensure_private_dir, write_private_file
from oraculum.core.paths import jobs_dir
from oraculum.jobs.ids import JOB_DIR_PREFIX, JOB_ID_PATTERN, validate_job_id, validate_job_ref
from oraculum.jobs.locks import named_lock
from oraculum.jobs.model import Job
from oraculum.jobs.transitions import check_invariants

JOB_FILE = "job.json"
PROMPT_FILE = "prompt.md"
JOB_LOCK_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class JobPaths:
    """The fixed layout of one job directory."""

    dir: Path

    @property
    def job_file(self) -> Path:
        return self.dir / JOB_FILE

    @property
    def prompt(self) -> Path:
        return self.dir / PROMPT_FILE

    @property
    def response(self) -> Path:
        return self.dir / "response.md"

    @property
    def artifacts_manifest(self) -> Path:
        return self.dir / "artifacts.json"

    @property
    def artifacts_dir(self) -> Path:
        return self.dir / "artifacts"

    @property
    def logs_dir(self) -> Path:
        return self.dir / "logs"

    @property
    def worker_log(self) -> Path:
        return self.logs_dir / "worker.log"

    def archive(self, job_id: str, provider: str) -> Path:
        suffix = ".tar.gz" if provider == "grok" else ".tar.zst"
        return self.dir / f"context-{job_id}{suffix}"


class JobStore:
    def __init__(self, root: Path | None = None) -> None:
        self.root = root if root is not None else jobs_dir()

    # Paths -----------------------------------------------------------------------------------

    def paths(self, job_id: str) -> JobPaths:
        return JobPaths(self.root / f"{JOB_DIR_PREFIX}{validate_job_id(job_id)}")

    # Reading ---------------------------------------------------------------------------------

    def list_ids(self) -> list[str]:
        """Every job id on disk, oldest first (ids sort by creation time)."""
        try:
            entries = os.scandir(self.root)
        except FileNotFoundError:
            return []
        with entries:
            ids = [
                entry.name[len(JOB_DIR_PREFIX) :]
                for entry in entries
                if entry.name.startswith(JOB_DIR_PREFIX)
                and JOB_ID_PATTERN.fullmatch(entry.name[len(JOB_DIR_PREFIX) :])
                and entry.is_dir(follow_symlinks=False)
            ]
        ids.sort()
        return ids

    def resolve(self, ref: str) -> str:
        """A full id from a full id or a unique prefix."""
        ref = validate_job_ref(ref)
        if JOB_ID_PATTERN.fullmatch(ref) and self.paths(ref).dir.is_dir():
            return ref
        matches = [job_id for job_id in self.list_ids() if job_id.startswith(ref)]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise OracleError(
                "job_not_found",
                f"Oracle job not found: {ref}",
                rejected_value=ref,
                suggested_next_step="Run `oraculum status` to list job ids.",
            )
        raise OracleError(
            "job_id_ambiguous",
            f"Job prefix {ref} matches {len(matches)} jobs; type more characters.",
            rejected_value=ref,
            allowed_values=matches[:10],
        )

    def load(self, job_id: str) -> Job:
        path = self.paths(job_id).job_file
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            raise OracleError(
                "job_not_found",
                f"Oracle job not found: {job_id}",
                rejected_value=job_id,
                suggested_next_step="Run `oraculum status` to list job ids.",
            ) from None
        except OSError as exc:
            raise OracleError(
                "job_corrupt",
                f"Job file {path} cannot be read: {exc.strerror}",
                rejected_value=str(path),
                suggested_next_step="Inspect or remove that job directory; other jobs are "
                "unaffected.",
            ) from None
        try:
            job = Job.model_validate(json.loads(raw))
            if job.id != job_id:
                raise ValueError(f"it records id {job.id!r}")
            return check_invariants(job)
        except (ValueError, ValidationError, OracleError) as exc:
            raise OracleError(
                "job_corrupt",
                f"Job file {path} is unreadable or invalid: {_first_line(exc)}",
                rejected_value=str(path),
                suggested_next_step="Inspect or remove that job directory; other jobs are "
                "unaffected.",
            ) from None

    def iter_jobs(self, *, newest_first: bool = True) -> Iterator[Job | OracleError]:
        """Every job, with corrupt ones reported in place rather than stopping the walk."""
        ids = self.list_ids()
        for job_id in reversed(ids) if newest_first else ids:
            try:
                yield self.load(job_id)
            except OracleError as error:
                if error.code != "job_not_found":  # removed between listing and reading
                    yield error

    # Writing ---------------------------------------------------------------------------------

    def create(self, job: Job, prompt: str) -> JobPaths:
        """Create the job directory exclusively and write `prompt.md` and `job.json`."""
        paths = self.paths(job.id)
        ensure_private_dir(self.root)
        paths.dir.mkdir(mode=0o700)  # FileExistsError: an id collision, never an overwrite
        ensure_private_dir(paths.logs_dir)
        write_private_file(paths.prompt, prompt.encode("utf-8"))
        self.save(check_invariants(job))
        return paths

    def save(self, job: Job) -> None:
        atomic_write_json(self.paths(job.id).job_file, job.to_json_dict())

    def update(
        self,
        job_id: str,
        change: Callable[[Job], Job | None],
        *,
        timeout: float = JOB_LOCK_TIMEOUT_S,
    ) -> Job:
        """Read-modify-write under the job lock. ``change`` returns the new job, or None to
        leave it as it is."""
        with named_lock("job", validate_job_id(job_id), timeout=timeout):
            current = self.load(job_id)
            changed = change(current)
            if changed is None or changed == current:
                return current
            if changed.id != job_id:
                raise OracleError("invalid_transition", "A job update cannot change the job id.")
            self.save(check_invariants(changed))
            return changed


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
