"""The watchdog: a small process beside each worker that ends its job when the worker dies.

A SIGKILLed worker cannot fail its own job, and nothing else may be running: no session, no
poller, no `wait`. So every worker starts a watchdog and keeps the write end of a pipe to it
open for its whole life. The kernel closes that end however the worker dies, and the watchdog
wakes at once: it waits until the process is really gone, then runs reconcile, which fails the
job `worker_lost`, tears its runtime down (its Chromium included) and promotes the queue.

That pass at the worker's exit is owed even when the job ended well: it is also what ends a
job whose worker was killed before it could start its own watchdog (in its first half second),
when nothing else (no session, poller or `wait`) is there to reconcile. A worker whose job
ended and was cleaned up makes it itself, where the job engine is already loaded
(:func:`make_exit_pass`), and says so with one byte on the pipe; the watchdog then has nothing
left to do. A worker that dies, has a clean-up to retry, or could not make the pass (another
process held reconcile's lock) leaves it to the watchdog.

While the worker lives, the watchdog looks at its own job once per heartbeat interval and runs
reconcile when it has gone stale, so a hung worker (alive, no heartbeat) is caught too. It
watches only its own job; other jobs have their own watchdogs. It holds nothing: killing it
costs only this safety net.

It starts light: the job engine (the pydantic job model, reconcile) is imported only when there
is something to judge: once the worker is gone, or when its job file has gone two heartbeat
intervals without a write (a live worker's heartbeat rewrites it every interval; one that keeps
writing is not hung). So a job's start, when its worker is busy launching a browser, does not
also pay for a second interpreter loading all of it, nor does a healthy job while it runs or
when it ends; the worker passes the heartbeat interval on the command line.
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from oraculum.core.process_group import spawn_group
from oraculum.jobs.ids import JOB_DIR_PREFIX, JOB_FILE, validate_job_id

if TYPE_CHECKING:
    from oraculum.jobs.store import JobStore

# How long a worker whose pipe closed may take to finish exiting before we judge it anyway.
EXIT_WAIT_S = 10.0
RECONCILE_LOCK_S = 5.0
RECONCILE_TRIES = 5
# What a worker writes on its pipe once it made the exit pass itself (nothing else is written).
PASS_MADE = b"p"
# How long a worker ending well waits for reconcile's lock before leaving the pass to us.
WORKER_PASS_LOCK_S = 0.5


def start_watchdog(job_dir: Path, log_path: Path, interval_s: float) -> int | None:
    """Start the watchdog for this (worker) process, to look at its job every ``interval_s``
    (the heartbeat interval); returns the pipe end to keep open.

    Call it before any thread starts. The returned descriptor is not inheritable, so the
    browser and its helpers never hold it; only :func:`make_exit_pass` writes to it.
    """
    read_end, write_end = os.pipe()
    try:
        spawn_group(  # its own group: a signal to the worker's group never reaches it
            [
                *(sys.executable, "-m", "oraculum.worker", "watch"),
                *(str(job_dir), str(read_end), str(round(interval_s * 1000))),
            ],
            stdout=log_path,
            stderr=log_path,
            pass_fds=(read_end,),
        )
    except OSError:
        os.close(write_end)
        return None
    finally:
        os.close(read_end)
    return write_end


def make_exit_pass(write_end: int, store: JobStore, job_id: str) -> bool:
    """The worker's side, at its end: run the exit pass here and tell the watchdog it was made.
    False (nothing said) when its own job is not ended and cleaned up (a clean-up to retry is
    retried once the worker is gone, as ever), or the pass was not made (another process held
    reconcile's lock, or it failed): the watchdog then makes it after the exit."""
    from oraculum.jobs.reconcile import reconcile

    try:
        job = store.load(job_id)
        if not job.is_terminal or job.cleanup_pending:
            return False
        if reconcile(store, lock_timeout=WORKER_PASS_LOCK_S).skipped_busy:
            return False
        os.write(write_end, PASS_MADE)
    except Exception:  # the watchdog's own pass covers whatever went wrong here
        return False
    return True


def _wait_for_pipe_close(fd: int, interval_s: float, on_idle: Callable[[], object]) -> bool:
    """Until EOF (the worker gone, or closing); True when it said it made the exit pass."""
    pass_made = False
    while True:
        ready, _, _ = select.select([fd], [], [], interval_s)
        if not ready:
            if not pass_made:  # told: the worker is only exiting, nothing left to judge
                on_idle()
            continue
        try:
            said = os.read(fd, 64)
        except OSError:
            return pass_made
        if not said:
            return pass_made
        pass_made = pass_made or PASS_MADE in said


def _wait_gone(job_dir: Path, timeout_s: float) -> None:
    """Wait (up to ``timeout_s``) until the worker recorded in the job has exited."""
    from oraculum.jobs.process import Liveness, liveness

    store, job_id = _store(job_dir)
    try:
        identity = store.load(job_id).worker
    except Exception:  # unreadable or gone: reconcile judges what is left
        return
    if identity is None:
        return
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and liveness(identity) == Liveness.ALIVE:
        time.sleep(0.05)


@cache
def _store(job_dir: Path) -> tuple[JobStore, str]:
    """The job's store and id (the job engine is imported here, on first need)."""
    from oraculum.jobs.store import JobStore

    job_id = validate_job_id(job_dir.name.removeprefix(JOB_DIR_PREFIX))
    return JobStore(root=job_dir.parent), job_id


def _reconcile_quietly(job_dir: Path, *, lock_timeout: float = 0.05) -> bool:
    """One pass; True unless another process was reconciling (then it is their pass)."""
    from oraculum.core.errors import OracleError
    from oraculum.jobs.reconcile import reconcile

    try:
        return not reconcile(_store(job_dir)[0], lock_timeout=lock_timeout).skipped_busy
    except OracleError as error:
        sys.stderr.write(f"watchdog: reconcile failed: [{error.code}] {error.message}\n")
    except Exception as exc:  # keep watching; the next pass tries again
        sys.stderr.write(f"watchdog: reconcile crashed: {exc!r}\n")
    return False


def _written_within(path: Path, window_s: float) -> bool:
    try:
        return time.time() - path.stat().st_mtime < window_s
    except OSError:  # gone or unreadable: judged by the engine
        return False


def _reconcile_if_stale(job_dir: Path, interval_s: float) -> None:
    if _written_within(job_dir / JOB_FILE, 2 * interval_s):
        return  # its worker wrote it lately: nothing to judge
    from oraculum.core.errors import OracleError
    from oraculum.jobs.model import utc_now
    from oraculum.jobs.rules import EngineSettings, stale_reason
    from oraculum.jobs.runtime import job_settings_config, worker_liveness

    store, job_id = _store(job_dir)
    try:
        job = store.load(job_id)
    except OracleError:
        return
    settings = EngineSettings.from_config(job_settings_config(job))
    if stale_reason(job, utc_now(), worker_liveness(job), settings) is not None:
        _reconcile_quietly(job_dir)


def watch_job(job_dir: Path, fd: int, interval_s: float) -> int:
    validate_job_id(job_dir.name.removeprefix(JOB_DIR_PREFIX))
    interval_s = max(interval_s, 0.2)
    pass_made = _wait_for_pipe_close(
        fd, interval_s, lambda: _reconcile_if_stale(job_dir, interval_s)
    )
    with contextlib.suppress(OSError):
        os.close(fd)
    if pass_made:
        return 0
    _wait_gone(job_dir, EXIT_WAIT_S)
    for _ in range(RECONCILE_TRIES):
        if _reconcile_quietly(job_dir, lock_timeout=RECONCILE_LOCK_S):
            break
    return 0


def main(argv: list[str]) -> int:
    """`python -m oraculum.worker watch <job-dir> <fd> [<interval-ms>]` (started by the worker;
    a worker from before the interval was passed leaves it out, and it is read from the job)."""
    if len(argv) not in (3, 4) or argv[0] != "watch" or not "".join(argv[2:]).isdigit():
        sys.stderr.write("usage: python -m oraculum.worker watch <job-dir> <fd> [<interval-ms>]\n")
        return 2
    job_dir = Path(argv[1]).absolute()
    interval_s = int(argv[3]) / 1000 if len(argv) == 4 else _heartbeat_interval(job_dir)
    return watch_job(job_dir, int(argv[2]), interval_s)


def _heartbeat_interval(job_dir: Path) -> float:
    from oraculum.jobs.runtime import job_settings_config

    store, job_id = _store(job_dir)
    return job_settings_config(store.load(job_id)).worker.heartbeat_interval_ms / 1000
