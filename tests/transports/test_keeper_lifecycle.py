"""The keeper's life around jobs: started on demand by a job, signed in once and kept across
restarts (its profile persists), and killed mid-job (the job fails precisely, nothing leaks)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from homes import finished
from oraculum.browser import keeper
from oraculum.jobs.model import Status
from oraculum.jobs.store import JobStore
from oraculum.simulator import SimulatorThread
from providers.conftest import submit_chatgpt

from .conftest import sign_in_and_open_sentinel
from .test_managed_jobs import log_of, managed_config

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def home(oraculum_home: Path) -> Iterator[Path]:
    yield oraculum_home
    keeper.stop_keeper()


def keeper_processes() -> list[psutil.Process]:
    flag = f"--user-data-dir={keeper.profile_dir()}"
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            if flag in (proc.info.get("cmdline") or []) and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.Error:
            continue
    return found


def sign_in_keeper(sim: SimulatorThread) -> None:
    record = keeper.read_record()
    assert record is not None
    endpoint = asyncio.run(keeper.prove_keeper(record))
    asyncio.run(sign_in_and_open_sentinel(endpoint, sim))


def test_a_job_starts_the_keeper_on_demand_and_runs_once_signed_in(home, sim, tmp_path) -> None:
    config = managed_config(sim)
    assert keeper.read_record() is None and not keeper_processes()
    first = finished(submit_chatgpt(tmp_path / "project", config).id)
    # The job started the keeper and reached the page; nobody had signed in yet.
    assert first.status == Status.FAILED
    assert first.error_code == "auth_login_required", first.error
    assert "oraculum browser login" in first.error
    record = keeper.read_record()
    assert record is not None and keeper.keeper_alive(record)  # it outlives the worker
    sign_in_keeper(sim)
    second = finished(submit_chatgpt(tmp_path / "project", config).id)
    assert second.status == Status.COMPLETE, f"{second.error}\n{log_of(second)}"
    assert keeper.read_record() == record  # the same keeper served both


def test_without_start_on_demand_a_job_says_start_the_browser(home, sim, tmp_path) -> None:
    config = managed_config(sim, on_demand=False)
    job = submit_chatgpt(tmp_path / "project", config)
    done = finished(job.id)
    assert done.status == Status.FAILED
    assert done.error_code == "managed_browser_not_running", done.error
    assert "startOnDemand is off" in (done.error or "")
    assert not keeper_processes()


def test_keeper_killed_mid_job_fails_it_precisely_and_leaks_nothing(home, sim, tmp_path) -> None:
    config = managed_config(sim, think_ms=20000)
    keeper.start_keeper(config)
    sign_in_keeper(sim)
    record = keeper.read_record()
    assert record is not None
    job = submit_chatgpt(tmp_path / "project", config)
    store = JobStore()
    deadline = time.monotonic() + 60
    while store.load(job.id).phase.value != "awaiting_response":
        assert time.monotonic() < deadline, log_of(store.load(job.id))
        assert not store.load(job.id).is_terminal, store.load(job.id).error
        time.sleep(0.2)
    os.killpg(record.pid, signal.SIGKILL)
    done = finished(job.id)
    assert done.status == Status.FAILED
    assert done.error_code == "managed_browser_lost", f"{done.error}\n{log_of(done)}"
    assert done.prompt_send_state.value == "accepted"
    assert "do not resubmit" in done.error  # the word on the prompt that went out
    assert not keeper_processes()
    if done.worker is not None:  # the worker exits on its own; wait for that, then check
        with contextlib.suppress(psutil.Error):
            psutil.Process(done.worker.pid).wait(30)
        assert not psutil.pid_exists(done.worker.pid) or _is_zombie(done.worker.pid)
    status = asyncio.run(keeper.keeper_status())
    assert status["running"] is False


def _is_zombie(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.Error:
        return True
