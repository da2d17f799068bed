"""The state machine: every allowed and forbidden transition, and invariants under any sequence."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oraculum.jobs import transitions
from oraculum.jobs.model import (
    MAX_LIFECYCLE_EVENTS,
    PHASE_STATUS,
    TERMINAL_STATUSES,
    WORKER_PHASES,
    Job,
    Phase,
    PromptSendState,
    Status,
)
from oraculum.jobs.transitions import TransitionError, invariant_violations, is_allowed

from .conftest import T0, build_job

OPEN_PHASES = [Phase.QUEUED, Phase.SUBMITTED, *WORKER_PHASES]
TERMINAL_PHASES = [p for p in Phase if PHASE_STATUS[p] in TERMINAL_STATUSES]


def expected_allowed(src: Phase, dst: Phase) -> bool:
    """The transition table written out by hand, independent of the implementation."""
    if src in TERMINAL_PHASES:
        return False
    if dst in (Phase.FAILED, Phase.CANCELLED):
        return True
    if dst in (Phase.COMPLETE, Phase.COMPLETE_WITH_ARTIFACT_ERRORS):
        return src in (
            Phase.AWAITING_RESPONSE,
            Phase.EXTRACTING_RESPONSE,
            Phase.DOWNLOADING_ARTIFACTS,
        )
    if src == Phase.QUEUED:
        return dst in (Phase.QUEUED, Phase.SUBMITTED)
    if dst == Phase.QUEUED:
        return False
    return OPEN_PHASES.index(dst) >= OPEN_PHASES.index(src)


def job_in(phase: Phase, make_job) -> Job:
    """A sound job sitting in ``phase``, reached through allowed transitions."""
    job = make_job(queued=phase == Phase.QUEUED)
    at = T0
    path = {
        Phase.QUEUED: [],
        Phase.SUBMITTED: [],
        **{p: list(WORKER_PHASES[: WORKER_PHASES.index(p) + 1]) for p in WORKER_PHASES},
        Phase.COMPLETE: [Phase.AWAITING_RESPONSE, Phase.COMPLETE],
        Phase.COMPLETE_WITH_ARTIFACT_ERRORS: [
            Phase.AWAITING_RESPONSE,
            Phase.COMPLETE_WITH_ARTIFACT_ERRORS,
        ],
        Phase.FAILED: [Phase.FAILED],
        Phase.CANCELLED: [Phase.CANCELLED],
    }[phase]
    for step in path:
        at += timedelta(seconds=1)
        job = transitions.transition(job, step, at=at, source="test")
    assert job.phase == phase
    return job


@pytest.mark.parametrize("src", list(Phase))
@pytest.mark.parametrize("dst", list(Phase))
def test_transition_table(src: Phase, dst: Phase, make_job) -> None:
    job = job_in(src, make_job)
    allowed = expected_allowed(src, dst)
    assert is_allowed(src, dst) is allowed
    at = T0 + timedelta(minutes=5)
    if allowed:
        moved = transitions.transition(job, dst, at=at, source="test")
        assert moved.phase == dst
        assert moved.status == PHASE_STATUS[dst]
        assert invariant_violations(moved) == []
    else:
        with pytest.raises(TransitionError) as info:
            transitions.transition(job, dst, at=at, source="test")
        assert info.value.code == "invalid_transition"


def test_completed_at_is_carried_forward_and_terminal_is_absorbing(make_job) -> None:
    job = job_in(Phase.COMPLETE, make_job)
    completed = job.completed_at
    later = transitions.update(
        job, at=T0 + timedelta(hours=1), source="test", patch={"cleanup_pending": True}
    )
    assert later.completed_at == completed
    for phase in OPEN_PHASES:
        with pytest.raises(TransitionError):
            transitions.transition(later, phase, at=T0 + timedelta(hours=2), source="test")


def test_terminal_transition_clears_cancel_intent(make_job) -> None:
    job = job_in(Phase.AWAITING_RESPONSE, make_job)
    job = transitions.update(
        job, at=T0, source="cancel", patch={"cancel_requested_at": T0, "cancel_reason": "x"}
    )
    done = transitions.transition(job, Phase.CANCELLED, at=T0, source="cancel")
    assert done.cancel_requested_at is None and done.cancel_reason is None


def test_queued_then_submitted_keeps_queued_at_and_sets_submitted_at(make_job) -> None:
    job = make_job(queued=True)
    assert job.queued_at == T0 and job.submitted_at is None
    at = T0 + timedelta(seconds=30)
    moved = transitions.transition(job, Phase.SUBMITTED, at=at, source="queue")
    assert moved.queued_at == T0
    assert moved.submitted_at == at


def test_prompt_send_state_only_moves_forward(make_job) -> None:
    job = job_in(Phase.UPLOADING_ARCHIVE, make_job)
    job = transitions.update(
        job, at=T0, source="w", patch={"prompt_send_state": PromptSendState.ATTEMPTED}
    )
    with pytest.raises(TransitionError):
        transitions.update(
            job, at=T0, source="w", patch={"prompt_send_state": PromptSendState.NOT_SENT}
        )


@pytest.mark.parametrize(
    "field", ["id", "status", "phase", "phase_at", "created_at", "completed_at"]
)
def test_patch_cannot_touch_state_machine_fields(field: str, make_job) -> None:
    job = make_job()
    with pytest.raises(TransitionError):
        transitions.update(job, at=T0, source="t", patch={field: getattr(job, field)})


def test_cleanup_pending_only_on_terminal(make_job) -> None:
    job = make_job()
    with pytest.raises(TransitionError):
        transitions.update(job, at=T0, source="t", patch={"cleanup_pending": True})


def test_events_are_capped(make_job) -> None:
    job = make_job()
    for n in range(200):
        job = transitions.update(job, at=T0, source="t", patch={}, message=f"note {n}")
    assert len(job.lifecycle_events) == MAX_LIFECYCLE_EVENTS
    assert job.lifecycle_events[-1].message == "note 199"


steps = st.lists(
    st.tuples(
        st.sampled_from(list(Phase)),
        st.integers(min_value=0, max_value=600),
        st.sampled_from([None, "cancel", "claim", "send", "cleanup"]),
    ),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(queued=st.booleans(), sequence=steps)
def test_no_event_sequence_breaks_an_invariant(queued: bool, sequence) -> None:
    job = build_job(queued=queued)
    at = T0
    completed_at = None
    for phase, seconds, extra in sequence:
        at += timedelta(seconds=seconds)
        patch = {
            None: {},
            "cancel": {"cancel_requested_at": at, "cancel_reason": "user"},
            "claim": {"notify_claimed_at": at, "notify_claimed_by": "s"},
            "send": {"prompt_send_state": PromptSendState.ATTEMPTED},
            "cleanup": {"cleanup_pending": True},
        }[extra]
        was_terminal = job.status in TERMINAL_STATUSES
        try:
            if extra is not None and phase == job.phase:
                job = transitions.update(job, at=at, source="prop", patch=patch)
            else:
                job = transitions.transition(job, phase, at=at, source="prop")
        except TransitionError:
            pass  # refused: the job is unchanged, checked below
        assert invariant_violations(job) == []
        if was_terminal:
            assert job.status in TERMINAL_STATUSES
            assert job.completed_at == completed_at
        if job.status in TERMINAL_STATUSES and completed_at is None:
            completed_at = job.completed_at
        assert len(job.lifecycle_events) <= MAX_LIFECYCLE_EVENTS
        assert job.status == PHASE_STATUS[job.phase]
        if job.status == Status.QUEUED:
            assert job.submitted_at is None


def test_end_fails_or_cancels_only(make_job) -> None:
    job = job_in(Phase.AWAITING_RESPONSE, make_job)
    failed = transitions.end(
        job,
        Phase.FAILED,
        at=T0,
        source="t",
        message="m",
        error="boom",
        error_code="x",
        cleanup_pending=True,
    )
    assert (failed.error, failed.error_code, failed.cleanup_pending) == ("boom", "x", True)
    assert failed.heartbeat_at == T0
    with pytest.raises(TransitionError):
        transitions.end(job, Phase.COMPLETE, at=T0, source="t", message="m", error="e")
