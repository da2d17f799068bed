"""Admission: capacity by runtime leases, conversation exclusivity, the FIFO queue, and the
handoff of an admitted job to its detached worker.

Everything that takes a lease or creates a job runs under the global admission lock, which is
what makes count-then-take race-free across processes. The lock is fair (waiters enter in the
order they asked) and held only for the decisions and the writes other submits must see: what
only this submit needs (the fields that do not depend on the id, the job's directory with its
prompt, the fsyncs that make the new job durable, the worker's start) happens outside it,
before or after.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from oraculum.core.config import Config
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.fsio import DISK_ERROR_CODES, os_error, os_errors
from oraculum.core.project import project_id
from oraculum.jobs import indexes, leases, transitions
from oraculum.jobs.duplicates import duplicate_error, find_duplicate
from oraculum.jobs.ids import new_job_id
from oraculum.jobs.locks import named_lock
from oraculum.jobs.model import Job, JobSelection, Phase, Status, WorkerIdentity, utc_now
from oraculum.jobs.process import load_liveness, spawn_worker, terminate
from oraculum.jobs.rules import EngineSettings, blocks_admission
from oraculum.jobs.runtime import (
    job_settings_config,
    record_cleanup,
    snapshot_config,
    teardown,
    worker_liveness,
)
from oraculum.jobs.store import JobStore, discard_prepared

ADMISSION_LOCK_TIMEOUT_S = 30.0
# What a failed lease or index-marker write was doing, for its disk_full / io_error message.
_RECORDING = "record the job in the state directory"


@dataclass
class JobRequest:
    """Everything needed to create a job, with its archive already built."""

    project_root: Path
    prompt: str
    provider: str
    selection: JobSelection
    config: Config
    archive: Path  # prepared archive; moved into the job directory on success
    archive_sha256: str
    archive_bytes: int
    session_id: str | None = None
    request_source: str = "cli"
    follow_up_to_job_id: str | None = None
    chat_url: str | None = None
    conversation_id: str | None = None
    options: dict[str, Any] = field(default_factory=dict)  # see `Job.options`
    # The duplicate guard (jobs.duplicates): the request's digest, and whether to send it
    # even though an identical job is queued or running.
    submission_digest: str | None = None
    force: bool = False
    council_id: str | None = None  # a council member's council (jobs.councils)


@dataclass(frozen=True)
class Capacity:
    active: int
    max_active: int
    queued: int
    max_queued: int

    def line(self) -> str:
        return (
            f"Capacity: {self.active}/{self.max_active} active, "
            f"{self.queued}/{self.max_queued} queued (global)."
        )


def _load_quietly(store: JobStore, job_id: str) -> Job | None:
    try:
        return store.load(job_id)
    except OracleError:
        return None


def lease_is_live(store: JobStore, lease: leases.Lease) -> bool:
    """Whether the lease's owning job still blocks admission (a dead lease is dropped by
    whoever next needs the slot; `doctor` only reports it)."""
    owner = _load_quietly(store, lease.job_id)
    return owner is not None and blocks_admission(owner, worker_liveness(owner))


def live_runtime_leases(store: JobStore, *, prune: bool) -> list[leases.Lease]:
    """Runtime leases whose owner still blocks admission; with ``prune``, drop the others."""
    live = []
    for lease in leases.list_leases(leases.RUNTIME):
        if lease_is_live(store, lease):
            live.append(lease)
        elif prune:
            lease.path.unlink(missing_ok=True)
    return live


def conversation_holder(store: JobStore, conversation_id: str, job_id: str) -> str | None:
    """The id of another live job holding the conversation, else None (dropping a dead lease)."""
    lease = leases.read_lease(leases.CONVERSATION, conversation_id)
    if lease is None or lease.job_id == job_id:
        return None
    if lease_is_live(store, lease):
        return lease.job_id
    lease.path.unlink(missing_ok=True)
    return None


def capacity(store: JobStore, config: Config) -> Capacity:
    """A read-only look at capacity: takes no lock and changes nothing."""
    queued = [
        j
        for j in indexes.members(indexes.QUEUE)
        if (job := _load_quietly(store, j)) and job.status == Status.QUEUED
    ]
    return Capacity(
        active=len(live_runtime_leases(store, prune=False)),
        max_active=config.browser.max_concurrent_jobs,
        queued=len(queued),
        max_queued=config.queue_depth,
    )


def queue_position(job_id: str) -> tuple[int, int] | None:
    """(position, depth) of a queued job, 1-based, in global submit order."""
    queue = indexes.members(indexes.QUEUE)
    if job_id not in queue:
        return None
    return queue.index(job_id) + 1, len(queue)


# Job creation -----------------------------------------------------------------------------


def _request_fields(request: JobRequest) -> dict[str, Any]:
    """The job fields that do not depend on its id (worked out before taking the lock)."""
    return {
        "project_root": str(request.project_root),
        "project_id": project_id(request.project_root),
        "config": request.config.to_json_dict(),
    }


def _job_fields(
    request: JobRequest,
    store: JobStore,
    job_id: str,
    base: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Every field of the new job; ``base`` is :func:`_request_fields`' when already known."""
    paths = store.paths(job_id)
    runtime_id = uuid.uuid4().hex
    return (base or _request_fields(request)) | {
        "session_id": request.session_id,
        "request_source": request.request_source,
        "council_id": request.council_id,
        "provider": request.provider,
        "selection": request.selection,
        "options": request.options,
        "follow_up_to_job_id": request.follow_up_to_job_id,
        "chat_url": request.chat_url,
        "conversation_id": request.conversation_id,
        "submission_digest": request.submission_digest,
        "prompt_path": str(paths.prompt),
        "archive_path": str(paths.archive(job_id, request.provider)),
        "archive_sha256": request.archive_sha256,
        "archive_bytes": request.archive_bytes,
        "response_path": str(paths.response),
        "artifacts_manifest_path": str(paths.artifacts_manifest),
        "logs_dir": str(paths.logs_dir),
        "runtime_id": runtime_id,
        "runtime_profile_dir": str(request.config.browser.runtime_profiles_dir / runtime_id),
    }


def _move_archive(source: Path, target: Path) -> None:
    """Move the archive (made 0600 before the lock) into its job directory."""
    with os_errors(target, action="move the archive to"):
        try:
            os.replace(source, target)
        except OSError:
            shutil.move(str(source), str(target))  # across filesystems
            target.chmod(0o600)


def _queued_archive_bytes(queue: list[str]) -> int:
    """Bytes of archives waiting on disk: the ``queue``'s jobs, plus those of finished jobs
    that never ran and whose archive could not be deleted yet."""
    return indexes.total_size(indexes.QUEUE, listed=queue) + indexes.total_size(indexes.STRANDED)


def _check_queue_limits(
    request: JobRequest, settings: EngineSettings, active: int, queue: list[str]
) -> None:
    queued = len(queue)
    if queued >= settings.queue_depth:
        raise OracleError(
            ErrorCode.QUEUE_FULL,
            f"Oracle is busy ({active}/{settings.max_concurrent_jobs} active, "
            f"{queued}/{settings.queue_depth} queued). Retry later instead of enqueuing more "
            "archive state.",
            retryable=True,
            suggested_next_step="Wait for a running job to finish (`oraculum status`), then retry.",
        )
    pending = _queued_archive_bytes(queue) + request.archive_bytes
    if pending > settings.max_queued_archive_bytes:
        raise OracleError(
            ErrorCode.QUEUE_FULL,
            f"Oracle queued archive storage is full ({pending} bytes > "
            f"{settings.max_queued_archive_bytes} bytes across queued jobs and retained "
            "pre-submit archives). Retry later or narrow the archive inputs.",
            retryable=True,
        )


def submit_job(request: JobRequest, *, store: JobStore | None = None) -> Job:
    """Create the job admitted (worker spawned) or queued, and return it.

    Any failure before the job is durably queued or handed to its worker undoes every step
    (:func:`_create`, :func:`_settle`); once it is, no later error undoes it.
    """
    store = store or JobStore()
    settings = EngineSettings.from_config(request.config)
    base = _request_fields(request)
    # What the promotion pass under the lock needs, loaded before it: psutil to check workers,
    # and the queue head's config (most often the same snapshot as this job's).
    load_liveness()
    snapshot_config(base["config"], known=request.config)
    # And what does not depend on the id: the job's directory, its prompt, the archive's mode.
    with os_errors(request.archive, action="change the mode of"):
        request.archive.chmod(0o600)
    prepared = store.prepare(request.prompt)
    try:
        with (
            indexes.Blank() as blank,
            named_lock("admission", timeout=ADMISSION_LOCK_TIMEOUT_S, fair=True),
        ):
            job = _decide(store, request, settings, base, _promote(store))
            _create(store, request, job, prepared, blank)
    except BaseException:
        discard_prepared(prepared)  # nothing, once adopted
        raise
    return _settle(store, job)


def _decide(
    store: JobStore,
    request: JobRequest,
    settings: EngineSettings,
    base: dict[str, Any],
    seen: _PromotionPass,
) -> Job:
    """The new job's record, admitted or queued (under the admission lock), from what the
    promotion pass just ``seen``."""
    # Assigned under the admission lock, so ids follow submit order.
    job_id = new_job_id(after=_newest_id(store))
    if request.submission_digest and not request.force:
        existing = find_duplicate(store, request.submission_digest)
        if existing is not None:
            raise duplicate_error(existing)
    if request.conversation_id:
        holder = conversation_holder(store, request.conversation_id, job_id)
        if holder is not None:
            raise OracleError(
                ErrorCode.ORACLE_THREAD_BUSY,
                f"Oracle conversation {request.conversation_id} is already in use by job "
                f"{holder}. Concurrent follow-ups to the same ChatGPT thread are not allowed.",
                rejected_value=request.conversation_id,
                retryable=True,
                suggested_next_step=f"Wait for job {holder} to finish, then follow up.",
            )
    active = seen.active
    if active is None:
        active = len(live_runtime_leases(store, prune=True))
    queued = active >= settings.max_concurrent_jobs
    if queued:
        queue = seen.queue if seen.queue is not None else indexes.members(indexes.QUEUE)
        _check_queue_limits(request, settings, active, queue)
    return transitions.create(
        job_id=job_id,
        at=utc_now(),
        queued=queued,
        source="oracle:submit",
        fields=_job_fields(request, store, job_id, base),
    )


def _newest_id(store: JobStore) -> str | None:
    """The newest job id: admission's record of it, else (a first submit, or a state
    directory from before the record) the newest job directory."""
    recorded = indexes.last_id()
    if recorded is not None:
        return recorded
    existing = store.list_ids()
    return existing[-1] if existing else None


def _create(
    store: JobStore, request: JobRequest, job: Job, prepared: Path, blank: indexes.Blank
) -> None:
    """Index the new job, take its leases (when admitted), make the prepared directory its
    own (not yet fsynced: :func:`_settle` does that after the lock) and move its archive in;
    any failure on the way undoes all of it. Its index markers are ``blank``, made before
    the lock and named here."""
    queued = job.status == Status.QUEUED
    created = False
    try:
        with os_errors(action=_RECORDING):
            if queued:
                indexes.register(
                    job.id, job.project_id, queued_bytes=request.archive_bytes, blank=blank
                )
            else:
                leases.write_lease(leases.RUNTIME, job.runtime_id, job.id)
                if job.conversation_id:
                    leases.write_lease(leases.CONVERSATION, job.conversation_id, job.id)
                indexes.register(job.id, job.project_id, blank=blank)
        store.adopt(job, prepared, sync=False)
        created = True
        with os_errors(action=_RECORDING):
            indexes.record_last_id(job.id)
        _move_archive(request.archive, Path(job.archive_path))
    except BaseException:
        _discard_unborn(store, job, created=created)
        raise


def _settle(store: JobStore, job: Job) -> Job:
    """After the lock: make the new job durable, then hand an admitted one to its worker.

    A failure here still undoes the job, rather than leaving it failed: its caller has not
    been given the id, nothing was sent, and undoing needs no disk space (a full disk is the
    likely cause) where recording a failure needs a job.json rewrite that may not fit. The
    caller gets the precise error (`disk_full`, …) and the same submit can simply be retried,
    so nothing is lost and no half-written job remains. A queued job another submit has
    promoted meanwhile is its worker's already, and is returned as it now is.
    """
    try:
        store.sync_created(job.id)
        if job.status == Status.QUEUED:
            return job
        return _hand_off(
            store,
            job,
            source="oracle:submit",
            failure_prefix="Submission failed before durable worker handoff",
        )
    except BaseException:
        if job.status == Status.QUEUED:
            taken = _undo_queued(store, job)
            if taken is not None:
                return taken
        else:
            _discard_unborn(store, job, created=True)
        raise


def _undo_queued(store: JobStore, job: Job) -> Job | None:
    """Undo a queued job whose settling failed, unless it was promoted meanwhile (then it is
    returned: it belongs to its worker now)."""
    with named_lock("admission", timeout=ADMISSION_LOCK_TIMEOUT_S, fair=True):
        latest = _load_quietly(store, job.id)
        if latest is not None and latest.status != Status.QUEUED:
            return latest
        _discard_unborn(store, job, created=True)
        return None


def _discard_unborn(store: JobStore, job: Job, *, created: bool) -> None:
    """Undo a job that never became durable: no directory (with the archive moved into it),
    no leases, no markers. Its worker, if one was spawned, was stopped before it could run."""
    if created:  # never a directory this attempt did not make
        shutil.rmtree(store.paths(job.id).dir, ignore_errors=True)
    _release_leases(job)
    indexes.forget(job.id, job.project_id)


def _hand_off(store: JobStore, job: Job, *, source: str, failure_prefix: str) -> Job:
    """Spawn the worker and persist its identity. When that fails before the identity is
    durable, the worker is stopped and the error raised: the caller undoes or fails the job."""
    identity: WorkerIdentity | None = None
    try:
        paths = store.paths(job.id)
        identity = spawn_worker(["run", str(paths.dir)], log_path=paths.worker_log)
        spawned = identity
        return store.update(
            job.id,
            lambda current: transitions.update(
                current, at=utc_now(), source=source, patch={"worker": spawned}
            ),
        )
    except Exception as exc:
        latest = _load_quietly(store, job.id)
        if latest is not None and latest.worker is not None:
            return latest  # durably handed off: the worker owns the job now
        if identity is not None:
            terminate(identity, grace_s=2.0)
        raise _hand_off_error(failure_prefix, exc) from exc


def _hand_off_error(prefix: str, exc: Exception) -> OracleError:
    """The hand-off's failure: a filesystem fault keeps its precise code and path."""
    cause = os_error(exc, action="start the worker") if isinstance(exc, OSError) else exc
    if isinstance(cause, OracleError) and cause.code in DISK_ERROR_CODES:
        return OracleError(
            cause.code,
            f"{prefix}: {cause.message}",
            rejected_value=cause.rejected_value,
            suggested_next_step=cause.suggested_next_step,
            retryable=cause.retryable,
            details=cause.details,
        )
    return OracleError(
        ErrorCode.ORACLE_SUBMIT_FAILED,
        f"{prefix}: {exc}",
        suggested_next_step="Check `oraculum preflight`.",
    )


def _fail_promoted(store: JobStore, job: Job, error: OracleError) -> None:
    """A queued job's hand-off failed. Its submitter already has the id, so it is not undone:
    it ends failed with the hand-off's code and its leases are freed. If even that cannot be
    written (a full disk), the job stays `submitted` with no worker and no lease, and reconcile
    fails it once it can write (no worker within `noWorkerGraceMs`)."""
    failed = _fail(store, job.id, error.message, source="oracle:queue", code=error.code)
    warnings = teardown(failed or job, store)
    if failed is not None:
        with contextlib.suppress(OracleError):
            record_cleanup(store, job.id, warnings, source="oracle:queue")


def _release_leases(job: Job) -> None:
    """Give back the job's capacity slot and conversation (never another job's lease)."""
    if job.conversation_id:
        leases.release(leases.CONVERSATION, job.conversation_id, job.id)
    leases.release(leases.RUNTIME, job.runtime_id, job.id)


def _fail(
    store: JobStore, job_id: str, message: str, *, source: str, code: str | None = None
) -> Job | None:
    def change(job: Job) -> Job | None:
        if job.is_terminal:
            return None
        return transitions.end(
            job,
            Phase.FAILED,
            at=utc_now(),
            source=source,
            message=f"Job failed: {message}",
            error=message,
            error_code=code,
        )

    try:
        return store.update(job_id, change)
    except OracleError:
        return None


# Promotion --------------------------------------------------------------------------------


def promote_queue(
    store: JobStore | None = None,
    *,
    locked: bool = False,
    lock_timeout: float = ADMISSION_LOCK_TIMEOUT_S,
) -> list[str]:
    """One FIFO pass over the queue; returns the ids it admitted.

    Stops at the first job capacity cannot take (strict FIFO); a follow-up blocked on its
    conversation is skipped so later jobs are not held behind it.
    """
    store = store or JobStore()
    load_liveness()
    if not locked:
        with named_lock("admission", timeout=lock_timeout, fair=True):
            return _promote(store).promoted
    return _promote(store).promoted


class _PromotionPass(NamedTuple):
    """What one pass saw, which a submit after it under the same lock reuses: when it stopped
    on a full capacity, the live lease count and the queue's ids from its head on."""

    promoted: list[str]
    active: int | None = None
    queue: list[str] | None = None


def _promote(store: JobStore) -> _PromotionPass:
    """:func:`promote_queue`'s pass (under the lock)."""
    promoted: list[str] = []
    passed_over: list[str] = []  # still queued, behind no one: a follow-up waiting, say
    queue = indexes.members(indexes.QUEUE)
    for position, job_id in enumerate(queue):
        job = _still_queued(store, job_id)
        if job is None:
            continue
        settings = EngineSettings.from_config(job_settings_config(job))
        active = len(live_runtime_leases(store, prune=True))
        if active >= settings.max_concurrent_jobs:
            return _PromotionPass(promoted, active, passed_over + queue[position:])
        if job.conversation_id and conversation_holder(store, job.conversation_id, job.id):
            passed_over.append(job_id)
            continue
        admitted = _admit_queued(store, job)
        if admitted is None:
            passed_over.append(job_id)
            continue
        indexes.unmark(indexes.QUEUE, job_id)
        try:
            _hand_off(
                store, admitted, source="oracle:queue", failure_prefix="Queued promotion failed"
            )
            promoted.append(admitted.id)
        except OracleError as error:
            _fail_promoted(store, admitted, error)
    return _PromotionPass(promoted)


def _still_queued(store: JobStore, job_id: str) -> Job | None:
    """The queue entry's job when it can still be promoted; otherwise its marker goes (and a
    queued job whose archive is missing fails)."""
    job = _load_quietly(store, job_id)
    if job is None or job.status != Status.QUEUED:
        indexes.unmark(indexes.QUEUE, job_id)
        return None
    if not Path(job.archive_path).exists():
        _fail(
            store,
            job.id,
            f"Queued promotion failed: Queued oracle archive is missing: {job.archive_path}",
            source="oracle:queue",
        )
        indexes.unmark(indexes.QUEUE, job_id)
        return None
    return job


def _admit_queued(store: JobStore, job: Job) -> Job | None:
    """Take the job's leases and move it to `submitted`; None (slot given back, job still
    queued with its archive for a later pass) when that cannot be recorded."""
    try:
        with os_errors(action=_RECORDING):
            leases.write_lease(leases.RUNTIME, job.runtime_id, job.id)
            if job.conversation_id:
                leases.write_lease(leases.CONVERSATION, job.conversation_id, job.id)
        return store.update(
            job.id,
            lambda current: transitions.transition(
                current,
                Phase.SUBMITTED,
                at=utc_now(),
                source="oracle:queue",
                message="Queued job admitted for worker launch.",
            ),
        )
    except OracleError:
        _release_leases(job)
        return None
