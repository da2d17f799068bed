"""`wait`: block until a job (or the session's next job) ends, and hand back its wake-up.

While it waits, a session's `wait` is a live host process of that session: it holds the
session's liveness file and delivers through the same claim protocol as every other poller,
so a wake-up it prints is counted and no other live process of the session repeats it at once.

A host that hands wake-ups out itself (the MCP server, which counts one only once a tool result
carries it) passes its poller as ``host``: the wait then only watches and delivers nothing.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.project import project_id
from oraculum.core.surface import Surface, tool_call
from oraculum.jobs import indexes
from oraculum.jobs.ids import given_job_ref
from oraculum.jobs.model import Job, utc_now
from oraculum.jobs.reconcile import reconcile_before_reading
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.common import project_config
from oraculum.service.status import find_job
from oraculum.service.summary import describe_age, job_summary
from oraculum.sessions.liveness import SessionLiveness
from oraculum.sessions.poller import Poller
from oraculum.sessions.sinks import Inbox, Sink, fan_out, hook_sink
from oraculum.sessions.wakeup import Wakeup, build_wakeup

__all__ = ["Delivery", "WaitResult", "advance_councils", "wait"]

POLL_S = 0.2
PROGRESS_EVERY_S = 1.0
# How often a wait on one job re-checks that its worker still lives (one cheap reconcile pass).
LIVENESS_EVERY_S = 1.0

Progress = Callable[[dict[str, Any]], None]
# One look for "has something ended?": the finished job's result, or None to keep waiting.
Check = Callable[[float], "WaitResult | None"]


@dataclass(frozen=True)
class Delivery:
    """The wake-ups a wait handed out itself (not a host's watch): the one it ended on first."""

    wakeup: Wakeup
    wakeups: tuple[Wakeup, ...]
    delivered: bool  # False: this session may not be told, so the wake-up was built, not counted


@dataclass(frozen=True)
class WaitResult:
    """How a wait ended: something finished (``done``) or ``timeout_s`` passed first.

    ``job`` is the job's summary (see service.summary); None when the wait was on the session's
    next event and only a background task's notice came, or nothing did.
    """

    done: bool
    job: dict[str, Any] | None
    elapsed_seconds: float
    delivery: Delivery | None = None  # None for a host's watch and for a timeout
    message: str | None = None  # a timeout's: what the job is still doing

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"done": self.done, "job": self.job}
        if self.delivery is not None:
            out.update(
                wakeup=self.delivery.wakeup.to_dict(),
                wakeups=[w.to_dict() for w in self.delivery.wakeups],
                delivered=self.delivery.delivered,
            )
        out["elapsedSeconds"] = self.elapsed_seconds
        if self.message is not None:
            out["message"] = self.message
        return out

    def text(self, surface: Surface) -> str:
        """A finished wait: its wake-ups' messages; a timeout: what is still open, and what next."""
        if self.done:
            wakeups = self.delivery.wakeups if self.delivery is not None else ()
            return "\n".join(w.text for w in wakeups)
        if surface == "cli":
            return self.message or ""
        return self._still_open_mcp()

    def _still_open_mcp(self) -> str:
        return " ".join(self.still_open())

    def still_open(self) -> tuple[str, str]:
        """A timeout, in MCP terms: what is still open, and what next (call again, or let the
        wake-up come)."""
        waited = f"{self.elapsed_seconds:.0f} s"
        job = self.job
        if job is None:
            again = tool_call("oracle_wait")
            text = f"No oracle job of this session finished in {waited}."
        else:
            again = tool_call("oracle_wait", {"jobId": job["id"]})
            text = (
                f"Oracle job {job['id']} is still {job['status']} ({job['phase']}) after {waited}."
            )
        step = (
            f"It keeps running: call {again} again, or stop and let the wake-up arrive in a later "
            "oracle tool result."
        )
        return text, step


def advance_councils(project_id: str, store: JobStore) -> None:
    """Every poller's scan hook (:data:`oraculum.sessions.poller.ScanHook`): a council whose
    last member ended is told once. The council service loads on the first scan."""
    from oraculum.service.council import advance_open_councils

    advance_open_councils(project_id, store=store)


def job_age_s(job: Job) -> float:
    """How long ago the job was created (a wait shows this, not how long it has waited)."""
    return max(0.0, (utc_now() - job.created_at).total_seconds())


def _progress_event(job: Job | None, elapsed: float) -> dict[str, Any]:
    event: dict[str, Any] = {"elapsedSeconds": round(elapsed, 1)}
    if job is not None:
        event.update(
            jobId=job.id,
            status=job.status.value,
            phase=job.phase.value,
            ageSeconds=round(job_age_s(job), 1),
        )
    return event


def wait(
    job_ref: str | None = None,
    *,
    caller: Caller | None = None,
    timeout_s: float | None = None,
    poll_s: float = POLL_S,
    on_progress: Progress | None = None,
    host: Poller | None = None,
    adopt: bool = False,
) -> WaitResult:
    """Returns a done result with its :class:`Delivery` once something ended, or a result
    that is not done when ``timeout_s`` passed first.

    With ``host`` (the poller of a host that carries wake-ups itself) a finished wait has no
    delivery: the host hands the wake-ups out with its own result. Without
    a job, it ends when something is due for the host's session: a finished job, or a
    background task's notice (then ``job`` is None and ``wakeups`` holds the notice).

    A session's wait is told only of its own jobs unless ``adopt`` (then also of the jobs of
    this project's gone sessions). Without a job, a timeout or a host, it refuses at once
    (`nothing_to_wait_for`) when the session has no open job and nothing is due: a bare
    ``wait`` never blocks forever on nothing. A timeout waits for a background task's notice.
    """
    caller = caller or Caller()
    job_ref = given_job_ref(job_ref)
    store = caller.store
    reconcile_before_reading(store)
    job = find_job(store, job_ref) if job_ref is not None else None
    # A job named from another directory is told about as its own project's sessions are.
    root = Path(job.project_root) if job is not None else caller.root
    session_id = caller.session_id(
        "wait for the session's next job", required=job is None and host is None
    )
    if host is not None:
        check = _watch_job(store, job) if job is not None else _watch_host(store, host)
        return _wait_loop(store, job, check, timeout_s, poll_s, on_progress)
    inbox = Inbox()
    poller, liveness = (
        _session_poller(root, session_id, store, inbox, adopt=adopt)
        if session_id is not None
        else (None, None)
    )
    try:
        if poller is not None and job is None and timeout_s is None:
            _refuse_when_nothing_is_open(store, poller)
        check = (
            _deliver_job(store, job, poller, inbox)
            if job is not None
            else _deliver_next(store, poller, inbox)
        )
        return _wait_loop(store, job, check, timeout_s, poll_s, on_progress)
    finally:
        if liveness is not None:
            liveness.close()


def _session_poller(
    root: Path, session_id: str, store: JobStore, inbox: Inbox, *, adopt: bool
) -> tuple[Poller, SessionLiveness]:
    """This wait as a live host of its session: its poller (the hook runs after the inbox)
    and the liveness it holds while it waits."""
    config = project_config(root)
    hook = config.notify.hook
    sink: Sink = fan_out(
        inbox, hook_sink(hook, timeout_s=config.notify.timeout_ms / 1000) if hook else None
    )
    liveness = SessionLiveness(project_id(root), session_id)
    poller = Poller(
        project_id(root),
        session_id,
        sink,
        store=store,
        adopt=adopt,
        after_reconcile=advance_councils,
    )
    return poller, liveness


def _wait_loop(
    store: JobStore,
    job: Job | None,
    check: Check,
    timeout_s: float | None,
    poll_s: float,
    on_progress: Progress | None,
) -> WaitResult:
    started = time.monotonic()
    last_progress = -PROGRESS_EVERY_S
    last_liveness = 0.0
    last_phase = None
    while True:
        elapsed = time.monotonic() - started
        if job is not None and elapsed - last_liveness >= LIVENESS_EVERY_S:
            # No poller may be alive: a dead worker's job must still end while we wait.
            reconcile_before_reading(store)
            last_liveness = elapsed
        done = check(elapsed)
        if done is not None:
            return done
        if job is not None:
            job = store.load(job.id)
        phase = job.phase if job is not None else None
        if on_progress is not None and (
            phase != last_phase or elapsed - last_progress >= PROGRESS_EVERY_S
        ):
            on_progress(_progress_event(job, elapsed))
            last_progress, last_phase = elapsed, phase
        if timeout_s is not None and elapsed >= timeout_s:
            message = (
                f"Oracle job {job.id} is still {job.status.value} ({job.phase.words}), "
                f"{describe_age(job_age_s(job))} after it was submitted."
                if job is not None
                else "No oracle job of this session finished yet."
            )
            summary = job_summary(job) if job is not None else None
            return WaitResult(False, summary, round(elapsed, 3), message=message)
        time.sleep(poll_s)


def _refuse_when_nothing_is_open(store: JobStore, poller: Poller) -> None:
    """`nothing_to_wait_for` when no job of the poller's session is queued or running and
    nothing is due for it (its own finished jobs, adopted ones, notices)."""
    for job_id in indexes.members(indexes.OPEN):
        try:
            job = store.load(job_id)
        except OracleError:
            continue
        mine = job.project_id == poller.project_id and job.session_id == poller.session_id
        if mine and not job.is_terminal:
            return
    if poller.pending():
        return
    raise OracleError(
        ErrorCode.NOTHING_TO_WAIT_FOR,
        f"Session {poller.session_id} has no queued or running oracle job here, and no "
        "wake-up is due for it.",
        suggested_next_step=(
            "Name a job (`oraculum wait JOB`), list jobs with `oraculum status`, pass --adopt "
            "to take over the jobs of this project's ended sessions, or --timeout to wait for "
            "a background task's notice."
        ),
    )


def _watch_job(store: JobStore, job: Job) -> Check:
    def check(elapsed: float) -> WaitResult | None:
        current = store.load(job.id)
        return _watched(current, elapsed) if current.is_terminal else None

    return check


def _watch_host(store: JobStore, host: Poller) -> Check:
    def check(elapsed: float) -> WaitResult | None:
        due = host.pending()
        if not due:
            return None
        jobs = [item for item in due if isinstance(item, Job)]
        return _watched(store.load(jobs[-1].id) if jobs else None, elapsed)

    return check


def _watched(job: Job | None, elapsed: float) -> WaitResult:
    """``job`` None: only a background task's notice is due."""
    summary = job_summary(job) if job is not None else None
    return WaitResult(True, summary, round(elapsed, 3))


def _deliver_job(store: JobStore, job: Job, poller: Poller | None, inbox: Inbox) -> Check:
    def check(elapsed: float) -> WaitResult | None:
        current = store.load(job.id)
        if not current.is_terminal:
            return None
        delivered: Wakeup | None = None
        if poller is not None:
            with contextlib.suppress(OracleError):
                poller.deliver(current)  # counted like any delivery when this session may be told
            delivered = next((w for w in inbox.drain() if w.job_id == job.id), None)
        current = store.load(job.id)
        wakeup = delivered or build_wakeup(
            current,
            store,
            session_id=poller.session_id if poller else (current.session_id or ""),
            attempt=current.wakeup_attempt_count,
        )
        return _result(current, wakeup, [wakeup], elapsed, delivered=delivered is not None)

    return check


def _deliver_next(store: JobStore, poller: Poller | None, inbox: Inbox) -> Check:
    def check(elapsed: float) -> WaitResult | None:
        if poller is None:
            return None
        poller.scan()
        pending = inbox.drain()
        if not pending:
            return None
        jobs = [w for w in pending if not w.is_notice]  # notices have no job record
        newest = store.load(jobs[-1].job_id) if jobs else None
        return _result(newest, pending[-1], pending, elapsed, delivered=True)

    return check


def _result(
    job: Job | None, wakeup: Wakeup, wakeups: list[Wakeup], elapsed: float, *, delivered: bool
) -> WaitResult:
    summary = job_summary(job) if job is not None else None
    return WaitResult(True, summary, round(elapsed, 3), Delivery(wakeup, tuple(wakeups), delivered))
