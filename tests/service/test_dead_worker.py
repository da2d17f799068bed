"""A dead worker never strands its job (issue 13 §2).

Each test SIGKILLs the worker *and* its watchdog, so nothing but the command under test can end
the job: no poller, no session, no other reconcile.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from homes import kill_watchdog, write_fast_config
from oraculum.jobs.model import Job, Phase, Status
from oraculum.jobs.process import Liveness, liveness
from oraculum.jobs.store import JobStore
from oraculum.service.read import read
from oraculum.service.status import status
from oraculum.service.submit import submit
from oraculum.service.wait import wait

pytestmark = pytest.mark.slow

HANG = {"outcome": "hang"}


def wait_for(store: JobStore, job_id: str, predicate: Callable[[Job], bool], timeout: float = 30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = store.load(job_id)
        if predicate(job):
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} never reached the state: {store.load(job_id).phase}")


def _running_then_orphaned(store: JobStore) -> tuple[str, str]:
    """One hanging job whose worker and watchdog are both SIGKILLed, and one queued behind it."""
    write_fast_config({"browser": {"maxConcurrentJobs": 1}})
    first = submit("one", ["src"], session="s", provider="test", selection_extras=HANG).job
    second = submit("two", ["src"], session="s", provider="test").job
    running = wait_for(store, first["id"], lambda j: j.phase == Phase.AWAITING_RESPONSE)
    kill_watchdog(store, first["id"])
    os.killpg(running.worker.pid, signal.SIGKILL)
    wait_for(store, first["id"], lambda j: liveness(j.worker) == Liveness.DEAD, timeout=5)
    assert store.load(first["id"]).is_active  # nobody has noticed yet
    return first["id"], second["id"]


def _assert_recovered(store: JobStore, dead: str, queued: str) -> None:
    ended = store.load(dead)
    assert ended.status == Status.FAILED and ended.error_code == "worker_lost"
    # The queue advanced with no session or poller alive; its job runs to completion.
    done = wait_for(store, queued, lambda j: j.is_terminal and not j.cleanup_pending)
    assert done.status == Status.COMPLETE


def test_status_ends_a_dead_workers_job(project: Path) -> None:
    store = JobStore()
    dead, queued = _running_then_orphaned(store)
    assert status(dead).to_json()["job"]["status"] == "failed"
    _assert_recovered(store, dead, queued)


def test_status_list_ends_a_dead_workers_job(project: Path) -> None:
    store = JobStore()
    dead, queued = _running_then_orphaned(store)
    listed = {job["id"]: job["status"] for job in status().to_json()["jobs"]}
    assert listed[dead] == "failed"
    _assert_recovered(store, dead, queued)


def test_read_ends_a_dead_workers_job(project: Path) -> None:
    store = JobStore()
    dead, queued = _running_then_orphaned(store)
    assert read(dead).job["status"] == "failed"
    _assert_recovered(store, dead, queued)


def test_wait_on_a_job_whose_worker_dies_while_waiting_returns(project: Path) -> None:
    store = JobStore()
    write_fast_config({"browser": {"maxConcurrentJobs": 1}})
    job = submit("one", ["src"], session="s", provider="test", selection_extras=HANG).job
    running = wait_for(store, job["id"], lambda j: j.phase == Phase.AWAITING_RESPONSE)
    kill_watchdog(store, job["id"])
    waiter = subprocess.Popen(
        [str(Path(sys.executable).with_name("oraculum")), "--json", "wait", job["id"]],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        time.sleep(1.0)  # the wait is under way when the worker dies
        assert waiter.poll() is None
        os.killpg(running.worker.pid, signal.SIGKILL)
        out, err = waiter.communicate(timeout=20)
    finally:
        if waiter.poll() is None:
            waiter.kill()
    assert waiter.returncode == 6, err  # the waited-for job ended unsuccessfully
    assert '"worker_lost"' in out or "worker_lost" in err
    assert store.load(job["id"]).error_code == "worker_lost"


def test_wait_service_returns_for_a_dead_workers_job(project: Path) -> None:
    store = JobStore()
    dead, queued = _running_then_orphaned(store)
    result = wait(dead, session="s")  # no timeout: it must not block forever
    assert result.done and result.job is not None and result.job["status"] == "failed"
    _assert_recovered(store, dead, queued)
