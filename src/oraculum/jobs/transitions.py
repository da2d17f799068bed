"""The one pure transition function of the job state machine.

Every change of a job's phase goes through :func:`transition`; every other change of a job's
fields goes through :func:`update`. Both return a new :class:`Job`, check the invariants, and
append a bounded lifecycle event. Nothing here does I/O.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.jobs.model import (
    ACTIVE_STATUSES,
    MAX_LIFECYCLE_EVENTS,
    PHASE_STATUS,
    PROMPT_SEND_ORDER,
    TERMINAL_STATUSES,
    WORKER_PHASES,
    EventKind,
    Job,
    LifecycleEvent,
    Phase,
    PromptSendState,
    Status,
)

# Forward order of the open phases; an open job only ever moves forward along it.
_OPEN_ORDER: dict[Phase, int] = {
    phase: index for index, phase in enumerate((Phase.QUEUED, Phase.SUBMITTED, *WORKER_PHASES))
}
# A run can only be complete once the answer has been waited for.
_CAN_COMPLETE = frozenset(
    {Phase.AWAITING_RESPONSE, Phase.EXTRACTING_RESPONSE, Phase.DOWNLOADING_ARTIFACTS}
)
_COMPLETE_PHASES = frozenset({Phase.COMPLETE, Phase.COMPLETE_WITH_ARTIFACT_ERRORS})

# Fields only the state machine itself writes.
_PROTECTED_FIELDS = frozenset(
    {"id", "status", "phase", "phase_at", "created_at", "completed_at", "lifecycle_events"}
)


class TransitionError(OracleError):
    def __init__(self, message: str, **kwargs: Any) -> None:
        super().__init__(ErrorCode.INVALID_TRANSITION, message, **kwargs)


def is_allowed(from_phase: Phase, to_phase: Phase) -> bool:
    """Whether the state machine permits ``from_phase`` → ``to_phase``."""
    if PHASE_STATUS[from_phase] in TERMINAL_STATUSES:
        return False  # terminal is absorbing; later facts are updates, not transitions
    if to_phase in (Phase.FAILED, Phase.CANCELLED):
        return True
    if to_phase in _COMPLETE_PHASES:
        return from_phase in _CAN_COMPLETE
    if to_phase == Phase.QUEUED:
        return from_phase == Phase.QUEUED
    if from_phase == Phase.QUEUED:
        return to_phase in (Phase.QUEUED, Phase.SUBMITTED)
    return _OPEN_ORDER[to_phase] >= _OPEN_ORDER[from_phase]


def invariant_violations(job: Job) -> list[str]:
    """Every invariant the job breaks (empty when it is sound)."""
    problems: list[str] = []
    if PHASE_STATUS.get(job.phase) != job.status:
        problems.append(f"status {job.status} does not match phase {job.phase}")
    if job.status == Status.QUEUED and job.queued_at is None:
        problems.append("a queued job needs queuedAt")
    if job.status in ACTIVE_STATUSES and job.submitted_at is None:
        problems.append("an active job needs submittedAt")
    terminal = job.status in TERMINAL_STATUSES
    if terminal and job.completed_at is None:
        problems.append("a terminal job needs completedAt")
    if not terminal and job.completed_at is not None:
        problems.append("an open job cannot have completedAt")
    if job.cleanup_pending and not terminal:
        problems.append("only a terminal job can have cleanupPending")
    if terminal and job.cancel_requested_at is not None:
        problems.append("a terminal job cannot carry a cancel request")
    if len(job.lifecycle_events) > MAX_LIFECYCLE_EVENTS:
        problems.append(f"more than {MAX_LIFECYCLE_EVENTS} lifecycle events")
    if job.phase_at < job.created_at:
        problems.append("phaseAt is earlier than createdAt")
    return problems


def check_invariants(job: Job) -> Job:
    problems = invariant_violations(job)
    if problems:
        raise TransitionError(f"Job {job.id} would break invariants: {'; '.join(problems)}.")
    return job


def _check_patch(patch: dict[str, Any], sent: PromptSendState) -> None:
    """Refuse a patch to unknown or state-machine fields, or one moving ``sent`` (the job's
    prompt send state so far) backwards."""
    unknown = [key for key in patch if key not in Job.model_fields]
    if unknown:
        raise TransitionError(f"Unknown job fields in patch: {', '.join(sorted(unknown))}.")
    protected = sorted(_PROTECTED_FIELDS.intersection(patch))
    if protected:
        raise TransitionError(f"Fields owned by the state machine: {', '.join(protected)}.")
    new_send = patch.get("prompt_send_state")
    moved_back = (
        new_send is not None
        and PROMPT_SEND_ORDER[PromptSendState(new_send)] < PROMPT_SEND_ORDER[sent]
    )
    if moved_back:
        raise TransitionError(f"promptSendState cannot move back from {sent} to {new_send}.")


def _with_event(events: list[LifecycleEvent], event: LifecycleEvent) -> list[LifecycleEvent]:
    return [*events, event][-MAX_LIFECYCLE_EVENTS:]


def transition(
    job: Job,
    to_phase: Phase,
    *,
    at: datetime,
    source: str,
    message: str | None = None,
    patch: dict[str, Any] | None = None,
    clear_notification_claim: bool = False,
) -> Job:
    """Move ``job`` to ``to_phase``; raise :class:`TransitionError` when that is forbidden."""
    if not is_allowed(job.phase, to_phase):
        raise TransitionError(
            f"Job {job.id} cannot move from {job.phase} to {to_phase}.",
            rejected_value=str(to_phase),
        )
    patch = dict(patch or {})
    _check_patch(patch, job.prompt_send_state)
    status = PHASE_STATUS[to_phase]
    fields: dict[str, Any] = {**patch, "status": status, "phase": to_phase, "phase_at": at}
    if status == Status.QUEUED:
        fields["queued_at"] = patch.get("queued_at") or job.queued_at or at
    if status in ACTIVE_STATUSES or job.submitted_at is not None:
        fields["submitted_at"] = patch.get("submitted_at") or job.submitted_at or at
    if status in TERMINAL_STATUSES:
        fields["completed_at"] = job.completed_at or at
        fields["cancel_requested_at"] = None
        fields["cancel_reason"] = None
    if clear_notification_claim:
        fields["notify_claimed_at"] = None
        fields["notify_claimed_by"] = None
    events = job.lifecycle_events
    if to_phase != job.phase or message:
        event = LifecycleEvent(
            at=at,
            source=source,
            kind=EventKind.PHASE,
            status=status,
            phase=to_phase,
            message=message or f"Transitioned to {to_phase.words} ({status}).",
        )
        events = _with_event(events, event)
    fields["lifecycle_events"] = events
    return check_invariants(job.model_copy(update=fields))


def end(
    job: Job,
    phase: Phase,
    *,
    at: datetime,
    source: str,
    message: str,
    error: str,
    error_code: str | None = None,
    next_step: str | None = None,
    details: dict[str, Any] | None = None,
    cleanup_pending: bool = False,
) -> Job:
    """End an open job failed or cancelled: the one shape every actor (worker, cancel,
    reconcile, admission) gives such an ending."""
    if phase not in (Phase.FAILED, Phase.CANCELLED):
        raise TransitionError(f"end() only fails or cancels a job, not {phase}.")
    patch: dict[str, Any] = {"error": error, "heartbeat_at": at, "cleanup_pending": cleanup_pending}
    if error_code is not None:
        patch["error_code"] = error_code
    if next_step is not None:
        patch["error_next_step"] = next_step
    if details:
        patch["error_details"] = details
    return transition(job, phase, at=at, source=source, message=message, patch=patch)


def revive(
    job: Job,
    phase: Phase,
    *,
    at: datetime,
    source: str,
    message: str,
    patch: dict[str, Any] | None = None,
) -> Job:
    """A failed job whose prompt the provider accepted, completed after all: recollection
    found its answer in the saved conversation. The one way out of a terminal phase.

    The earlier failure stays in the lifecycle (``message`` should name it); ``error`` and
    ``errorCode`` are cleared, since they describe the job's outcome."""
    if phase not in _COMPLETE_PHASES:
        raise TransitionError(f"revive() only completes a job, not {phase}.")
    if job.status != Status.FAILED:
        raise TransitionError(f"Job {job.id} is {job.status}; only a failed job can be revived.")
    if job.prompt_send_state != PromptSendState.ACCEPTED or not job.chat_url:
        raise TransitionError(
            f"Job {job.id} never had its prompt accepted in a known conversation; "
            "there is no answer to revive it with."
        )
    patch = dict(patch or {})
    _check_patch(patch, job.prompt_send_state)
    event = LifecycleEvent(
        at=at, source=source, kind=EventKind.PHASE, status=PHASE_STATUS[phase], phase=phase,
        message=message,
    )  # fmt: skip
    fields: dict[str, Any] = {
        **patch,
        "status": PHASE_STATUS[phase],
        "phase": phase,
        "phase_at": at,
        "completed_at": at,
        "error": None,
        "error_code": None,
        "error_next_step": None,
        "error_details": None,
        "lifecycle_events": _with_event(job.lifecycle_events, event),
    }
    return check_invariants(job.model_copy(update=fields))


def update(
    job: Job,
    *,
    at: datetime,
    source: str,
    patch: dict[str, Any],
    kind: EventKind | None = None,
    message: str | None = None,
) -> Job:
    """Change fields other than the phase; record an event when ``message`` is given."""
    _check_patch(patch, job.prompt_send_state)
    fields = dict(patch)
    if message:
        event = LifecycleEvent(
            at=at,
            source=source,
            kind=kind or EventKind.NOTE,
            status=job.status,
            phase=job.phase,
            message=message,
        )
        fields["lifecycle_events"] = _with_event(job.lifecycle_events, event)
    return check_invariants(job.model_copy(update=fields))


def create(
    *,
    job_id: str,
    at: datetime,
    queued: bool,
    source: str,
    fields: dict[str, Any],
) -> Job:
    """A new job, either queued for later admission or admitted for a worker now."""
    phase = Phase.QUEUED if queued else Phase.SUBMITTED
    status = PHASE_STATUS[phase]
    message = (
        "Job created and queued for later admission."
        if queued
        else "Job created and admitted for worker launch."
    )
    _check_patch(fields, PromptSendState.NOT_SENT)
    job = Job(
        **fields,
        id=job_id,
        status=status,
        phase=phase,
        phase_at=at,
        created_at=at,
        queued_at=at if queued else None,
        submitted_at=None if queued else at,
        lifecycle_events=[
            LifecycleEvent(
                at=at,
                source=source,
                kind=EventKind.CREATED,
                status=status,
                phase=phase,
                message=message,
            )
        ],
    )
    return check_invariants(job)
