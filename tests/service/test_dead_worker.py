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
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from homes import kill_watchdog, write_fast_config
from oraculum.jobs.model import Job, Phase, Status
from oraculum.jobs.process import Liveness, liveness
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.read import read
from oraculum.service.status import status
from oraculum.service.submit import submit
from oraculum.service.wait import wait

pytestmark = pytest.mark.slow

HANG = {"outcome": "hang"}
POLL_MS = 500
ORACULUM = str(Path(sys.executable).with_name("oraculum"))


def wait_for(store: JobStore, job_id: str, predicate: Callable[[Job], bool], timeout: float = 30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = store.load(job_id)
        if predicate(job):
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} never reached the state: {store.load(job_id).phase}")


def _running_then_orphaned(
    store: JobStore, before_kill: Callable[[], object] | None = None
) -> tuple[str, str]:
    """One hanging job whose worker and watchdog are both SIGKILLed, and one queued behind it
    (``before_kill`` runs just before the kill)."""
    write_fast_config({"browser": {"maxConcurrentJobs": 1}, "poller": {"intervalMs": POLL_MS}})
    first = submit(
        "one", ["src"], caller=Caller(session="s"), provider="test", selection_extras=HANG
    ).job
    second = submit("two", ["src"], caller=Caller(session="s"), provider="test").job
    running = wait_for(store, first["id"], lambda j: j.phase == Phase.AWAITING_RESPONSE)
    if before_kill is not None:
        before_kill()
    kill_watchdog(store, first["id"])
    os.killpg(running.worker.pid, signal.SIGKILL)
    wait_for(store, first["id"], lambda j: liveness(j.worker) == Liveness.DEAD, timeout=5)
    if before_kill is None:
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
    job = submit(
        "one", ["src"], caller=Caller(session="s"), provider="test", selection_extras=HANG
    ).job
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
    result = wait(dead, caller=Caller(session="s"))  # no timeout: it must not block forever
    assert result.done and result.job is not None and result.job["status"] == "failed"
    _assert_recovered(store, dead, queued)


# Any long-lived oraculum process ends the job, with no command run (issue 41 §3) -------------


def _proc(project: Path, *args: str) -> None:
    subprocess.run(
        [ORACULUM, "--json", "proc", *args], cwd=project, check=True, capture_output=True
    )


@pytest.fixture
def supervisor_alive(project: Path) -> Iterator[Callable[[], None]]:
    """Starts a `proc` supervisor of session "s" (holding one sleeper) when called."""

    def start() -> None:
        _proc(project, "start", "--session", "s", "--", sys.executable, "-c", SLEEP)

    yield start
    _proc(project, "shutdown", "--session", "s")


SLEEP = "import time; time.sleep(120)"


def _ends_unseen(store: JobStore, job_id: str, within_s: float) -> Job:
    """Reads job.json only (no reconcile of its own) until the job has ended."""
    return wait_for(store, job_id, lambda j: j.is_terminal, timeout=within_s)


def test_a_proc_supervisor_alone_ends_a_dead_workers_job(
    project: Path, supervisor_alive: Callable[[], None]
) -> None:
    store = JobStore()
    dead, queued = _running_then_orphaned(store, before_kill=supervisor_alive)
    # The worker is dead already: its first poll sees it (one poll plus a pass's own time).
    ended = _ends_unseen(store, dead, within_s=POLL_MS / 1000 + 2.0)
    assert ended.error_code == "worker_lost"
    assert ended.lifecycle_events[-1].source in ("oracle:reconcile",)
    assert not store.paths(dead).space_reserve.exists()  # its worker never gave it back
    _assert_recovered(store, dead, queued)


@pytest.fixture
def read_only_jobs(project: Path) -> Iterator[Callable[[bool], None]]:
    """Makes the jobs directory read-only (a read-only bind mount over itself) and back."""
    if os.geteuid() != 0:
        pytest.skip("a read-only bind mount needs root")
    root = JobStore().root
    mounted: list[bool] = []

    def read_only(on: bool) -> None:
        if on:
            subprocess.run(["mount", "--bind", str(root), str(root)], check=True)
            mounted.append(True)
            subprocess.run(["mount", "-o", "remount,ro,bind", str(root)], check=True)
        else:
            subprocess.run(["umount", str(root)], check=True)
            mounted.pop()

    yield read_only
    if mounted:
        subprocess.run(["umount", "-l", str(root)], check=False)


def test_a_dead_workers_job_ends_once_a_read_only_jobs_dir_is_writable_again(
    project: Path,
    supervisor_alive: Callable[[], None],
    read_only_jobs: Callable[[bool], None],
) -> None:
    store = JobStore()

    def read_only_then_start() -> None:
        supervisor_alive()
        read_only(True)

    read_only = read_only_jobs
    dead, queued = _running_then_orphaned(store, before_kill=read_only_then_start)
    time.sleep(4 * POLL_MS / 1000)  # every pass meanwhile fails: nothing can be written
    assert store.load(dead).is_active
    read_only(False)
    ended = _ends_unseen(store, dead, within_s=POLL_MS / 1000 + 2.0)
    assert ended.error_code == "worker_lost"
    _assert_recovered(store, dead, queued)
