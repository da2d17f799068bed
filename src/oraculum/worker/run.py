"""The worker: verify identity, heartbeat for life, run the provider, finish, clean up.

It owns its job from `submitted` to a terminal phase. A SIGTERM (cancel) or SIGINT stops the
provider and runs the same cleanup, but writes no status: the canceller decides the outcome.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from oraculum.core.config import Config
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.fsio import DISK_ERROR_CODES, os_error
from oraculum.jobs import transitions
from oraculum.jobs.admission import promote_queue
from oraculum.jobs.ids import JOB_DIR_PREFIX, validate_job_id
from oraculum.jobs.model import EventKind, Job, Phase, PromptSendState, iso, utc_now
from oraculum.jobs.process import NONCE_ENV
from oraculum.jobs.runtime import job_settings_config, record_cleanup, teardown
from oraculum.jobs.store import JobPaths, JobStore
from oraculum.providers import get_provider
from oraculum.providers.base import ProviderOutcome
from oraculum.worker.watchdog import make_exit_pass, start_watchdog

IDENTITY_WAIT_S = 15.0
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_REFUSED = 3
SOURCE = "oracle:worker"


class WorkerLog:
    def __init__(self, path: Path) -> None:
        self.path = path

    def __call__(self, message: str) -> None:
        line = f"[{iso(utc_now())}] {message}\n"
        with contextlib.suppress(OSError), self.path.open("a", encoding="utf-8") as handle:
            handle.write(line)


class Heartbeat(threading.Thread):
    """Stamps `heartbeatAt` from a thread, so nothing the run does (a lock wait, a slow
    browser call) can starve it."""

    def __init__(
        self, store: JobStore, job_id: str, nonce: str, interval_s: float, log: WorkerLog
    ) -> None:
        super().__init__(name="heartbeat", daemon=True)
        self.store, self.job_id, self.nonce = store, job_id, nonce
        self.interval_s = interval_s
        self.log = log
        self.stopped = threading.Event()

    def beat(self) -> None:
        def change(job: Job) -> Job | None:
            mine = job.worker is not None and job.worker.nonce == self.nonce
            if not mine or not (job.is_active or job.cleanup_pending):
                return None
            return transitions.update(
                job, at=utc_now(), source=SOURCE, patch={"heartbeat_at": utc_now()}
            )

        try:
            self.store.update(self.job_id, change, timeout=self.interval_s)
        except OracleError as error:
            self.log(f"heartbeat skipped: {error.message}")

    def run(self) -> None:
        while not self.stopped.wait(self.interval_s):
            self.beat()


class Context:
    """The :class:`~oraculum.providers.base.WorkerContext` the worker hands its provider."""

    def __init__(self, store: JobStore, job: Job, config: Config, log: WorkerLog) -> None:
        self.store = store
        self.job = job
        self.paths: JobPaths = store.paths(job.id)
        self.config = config
        self.prompt = self.paths.prompt.read_text(encoding="utf-8")
        self.log = log

    async def _write(self, change: Any) -> Job:
        self.job = await asyncio.to_thread(self.store.update, self.job.id, change)
        return self.job

    async def enter_phase(self, phase: Phase, *, patch: dict[str, Any] | None = None) -> Job:
        self.log(f"phase {phase}")
        now = utc_now()
        return await self._write(
            lambda job: transitions.transition(
                job, phase, at=now, source=SOURCE, patch={"heartbeat_at": now, **(patch or {})}
            )
        )

    async def record(
        self, patch: dict[str, Any], *, message: str | None = None, kind: EventKind | None = None
    ) -> Job:
        now = utc_now()
        return await self._write(
            lambda job: transitions.update(
                job, at=now, source=SOURCE, patch=patch, message=message, kind=kind
            )
        )


def _wait_for_identity(store: JobStore, job_id: str, nonce: str) -> Job | None:
    """The job once our identity is persisted in it, else None.

    The submitter persists pid, start time and nonce right after spawning us; until it has, the
    job is not ours to run.
    """
    deadline = time.monotonic() + IDENTITY_WAIT_S
    while time.monotonic() < deadline:
        job = store.load(job_id)
        if job.worker is not None:
            ours = job.worker.pid == os.getpid() and job.worker.nonce == nonce
            return job if ours else None
        time.sleep(0.02)
    return None


def _finish(store: JobStore, job_id: str, at: datetime, outcome: ProviderOutcome) -> Job:
    return store.update(
        job_id,
        lambda job: (
            None
            if job.is_terminal
            else transitions.transition(
                job,
                outcome.phase,
                at=at,
                source=SOURCE,
                message=outcome.message,
                patch={"heartbeat_at": at, "cleanup_pending": True, **outcome.patch},
            )
        ),
    )


def _answer_may_be_unsaved(job: Job, code: str) -> bool:
    """A disk fault after the prompt was accepted may have cost the answer: it is still in the
    conversation, so the job says to recollect it (`oraculum read --recollect`), not resend."""
    return code in DISK_ERROR_CODES and job.prompt_send_state == PromptSendState.ACCEPTED


def _json_safe(details: dict[str, Any]) -> dict[str, Any] | None:
    """An error's details as job.json can hold them (whatever is not JSON, in words)."""
    if not details:
        return None
    safe: dict[str, Any] = json.loads(json.dumps(details, default=str))
    return safe


def _fail(store: JobStore, job_id: str, error: OracleError) -> Job:
    at = utc_now()

    def change(job: Job) -> Job | None:
        if job.is_terminal:
            return None
        ended = transitions.end(
            job,
            Phase.FAILED,
            at=at,
            source=SOURCE,
            message=f"Job failed: {error.message}",
            error=error.message,
            error_code=error.code,
            next_step=error.suggested_next_step,
            details=_json_safe(error.details),
            cleanup_pending=True,
        )
        if not _answer_may_be_unsaved(job, error.code):
            return ended
        patch = {"recollection_needed": True}
        return transitions.update(ended, at=at, source=SOURCE, patch=patch)

    return store.update(job_id, change)


def _last_write(store: JobStore, job_id: str, write: Callable[[], Job]) -> Job:
    """Record how the job ended; on a full disk, give back the space set aside at start
    (`JobStore.reserve_space`) and try once more, so the ending is never lost to it."""
    try:
        return write()
    except OracleError as error:
        if error.code != ErrorCode.DISK_FULL or not store.release_reserve(job_id):
            raise
        return write()


async def _run_provider(ctx: Context) -> ProviderOutcome:
    provider = get_provider(ctx.job.provider)
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    terminated = {"flag": False}

    def on_signal() -> None:
        terminated["flag"] = True
        if task is not None:
            task.cancel()

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, on_signal)
    try:
        return await provider.run(ctx)
    except asyncio.CancelledError:
        if terminated["flag"]:
            raise _Terminated() from None
        raise


class _Terminated(Exception):
    """The worker was told to stop; the canceller owns the outcome."""


def run_job(job_dir: Path) -> int:
    job_id = validate_job_id(job_dir.name.removeprefix(JOB_DIR_PREFIX))
    store = JobStore(root=job_dir.parent)
    log = WorkerLog(store.paths(job_id).worker_log)
    nonce = os.environ.pop(NONCE_ENV, "")
    job = _wait_for_identity(store, job_id, nonce) if nonce else None
    if job is None:
        log(f"worker {os.getpid()} refused: its identity is not the one recorded in the job")
        return EXIT_REFUSED
    log(f"worker {os.getpid()} started for job {job_id}")
    config = job_settings_config(job)
    interval_s = config.worker.heartbeat_interval_ms / 1000
    # Before any thread starts; the pipe end stays open until this process is gone.
    watchdog_pipe = start_watchdog(job_dir, store.paths(job_id).worker_log, interval_s)
    if watchdog_pipe is None:
        log("watchdog could not start: a crash of this worker waits for the next reconcile")
    heartbeat = Heartbeat(store, job_id, nonce, interval_s, log)
    heartbeat.start()
    exit_code = EXIT_OK
    terminated = False
    try:
        # A job with no room for this would have none to record how it ended either: it
        # ends `disk_full` now, before anything is sent, while that ending still fits.
        store.reserve_space(job_id)
        ctx = Context(store, job, config, log)
        outcome = asyncio.run(_run_provider(ctx))
        _last_write(store, job_id, lambda: _finish(store, job_id, utc_now(), outcome))
        log("job completed")
    except _Terminated:
        terminated = True
        log("terminated by signal; cleaning up without writing a status")
    except (OracleError, OSError) as exc:  # an OSError no writer named still has its code
        error = exc if isinstance(exc, OracleError) else os_error(exc)
        exit_code = EXIT_FAILED
        log(f"job failed: [{error.code}] {error.message}")
        if error.details:  # wanted/observed and the like: the job keeps only the message
            log(f"error details: {json.dumps(error.details, default=str)}")
        _last_write(store, job_id, lambda: _fail(store, job_id, error))
    except Exception as exc:  # the job must end failed, never stuck active
        exit_code = EXIT_FAILED
        log(f"worker crashed: {exc!r}")
        crash = OracleError(ErrorCode.WORKER_CRASHED, f"The worker crashed: {exc}")
        _last_write(store, job_id, lambda: _fail(store, job_id, crash))
    finally:
        store.release_reserve(job_id)  # before cleanup, which writes too
        _cleanup(store, job_id, log, terminated=terminated)
        heartbeat.stopped.set()
    if not terminated and config.notify.desktop:
        _tell_the_desktop(store, job_id, log)
    if not terminated and watchdog_pipe is not None:
        make_exit_pass(watchdog_pipe, store, job_id)
    return exit_code


def _tell_the_desktop(store: JobStore, job_id: str, log: WorkerLog) -> None:
    from oraculum.sessions.desktop import notify_desktop  # only when the person asked for it

    try:
        problem = notify_desktop(store.load(job_id))
    except OracleError as error:
        problem = error.message
    log(f"desktop notification: {problem or 'shown'}")


def _cleanup(store: JobStore, job_id: str, log: WorkerLog, *, terminated: bool) -> None:
    try:
        job = store.load(job_id)
        warnings = teardown(job, store)
        for warning in warnings:
            log(f"cleanup warning: {warning}")
        if job.is_terminal and not terminated:
            record_cleanup(store, job_id, warnings, source=SOURCE)
            if not warnings:
                # Freed capacity goes to the next queued job; if another process holds the
                # admission lock it will promote, so do not wait long for it.
                promote_queue(store, lock_timeout=2.0)
    except OracleError as error:
        log(f"cleanup problem: [{error.code}] {error.message}")
    except Exception as exc:  # reconcile retries whatever is left; the log says why
        log(f"cleanup crashed: {exc!r}")


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "recollect":
        from oraculum.worker.recollect import recollect_job  # the capture layer loads on demand

        return recollect_job(Path(argv[1]).absolute())
    if len(argv) != 2 or argv[0] not in ("run",):
        sys.stderr.write("usage: python -m oraculum.worker run <job-dir>\n")
        return 2
    return run_job(Path(argv[1]).absolute())
