"""Chaos (issue 13): jobs against the simulator at capacity 2 while workers and Chromiums are
SIGKILLed at random. Nothing but the jobs' own processes runs: no poller, no `wait`, no
reconcile from the test (it only reads job files). Every job must end complete or failed with
a precise code in time, and nothing may leak: profiles, browsers, leases, staging files."""

from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path

import psutil
import pytest

from homes import SIMULATOR_WORKER, write_global_config
from oraculum.core.paths import jobs_dir
from oraculum.jobs import leases
from oraculum.jobs.model import Job, Status
from oraculum.jobs.process import Liveness, liveness
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.submit import submit

pytestmark = [pytest.mark.browser, pytest.mark.slow]

JOBS = 12
CAPACITY = 2
STALE_MS = 10_000
KILLS = 8
# Codes a killed job may end with; anything else (or none) is an imprecise ending.
PRECISE = {"worker_lost", "browser_crashed", "browser_error", "provider_unreachable"}


def browser_pids(profile: str) -> list[int]:
    flag = f"--user-data-dir={profile}"
    pids = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            if flag in (proc.info.get("cmdline") or ()):
                pids.append(proc.pid)
        except psutil.Error:
            continue
    return pids


def our_processes(root: Path) -> list[str]:
    """Workers, watchdogs and browsers still running for anything under ``root``."""
    left = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            line = " ".join(proc.info.get("cmdline") or ())
            if str(root) in line and proc.status() != psutil.STATUS_ZOMBIE:
                left.append(f"{proc.pid}: {line[:160]}")
        except psutil.Error:
            continue
    return left


def test_random_sigkills_strand_nothing(seeded, sim, tmp_path: Path) -> None:
    config = write_global_config(
        {
            "browser": {
                "chatUrl": sim.chat_url(token_ms=40, answer="echo"),
                "authUrl": sim.sign_in_url,
                "maxConcurrentJobs": CAPACITY,
            },
            "worker": {
                **SIMULATOR_WORKER,
                "heartbeatIntervalMs": 500,
                "staleHeartbeatMs": STALE_MS,
            },
            "queue": {"maxQueuedPerSlot": JOBS},
        }
    )
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'chaos'\n")
    (project / "src" / "app.py").write_text("print('chaos')\n")
    store = JobStore()
    more = "tell me more " * 20
    ids = [
        submit(f"Question {n}: {more}", ["src"], caller=Caller(cwd=project, session="chaos")).job[
            "id"
        ]
        for n in range(JOBS)
    ]
    rng = random.Random(13)
    killed: dict[str, tuple[str, float]] = {}  # job id -> (what, when)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        jobs = [store.load(i) for i in ids]
        if all(j.is_terminal and not j.cleanup_pending for j in jobs):
            break
        running = [
            j for j in jobs if j.is_active and j.worker and j.id not in killed
            and liveness(j.worker) == Liveness.ALIVE
        ]  # fmt: skip
        if running and len(killed) < KILLS and rng.random() < 0.5:
            victim = rng.choice(running)
            browsers = browser_pids(victim.runtime_profile_dir)
            if browsers and rng.random() < 0.5:
                os.kill(min(browsers), signal.SIGKILL)  # the browser's main process
                killed[victim.id] = ("chromium", time.monotonic())
            else:
                os.kill(victim.worker.pid, signal.SIGKILL)
                killed[victim.id] = ("worker", time.monotonic())
        time.sleep(rng.uniform(0.3, 1.2))

    final: dict[str, Job] = {i: store.load(i) for i in ids}
    open_jobs = [f"{j.id} {j.phase}" for j in final.values() if not j.is_terminal]
    assert open_jobs == [], f"stranded: {open_jobs}; killed: {killed}"
    assert len(killed) >= 4, f"too few kills to mean anything: {killed}"
    for job_id, (what, when) in killed.items():
        job = final[job_id]
        assert job.status in (Status.COMPLETE, Status.FAILED), (job_id, what, job.status)
        if job.status == Status.FAILED:
            assert job.error_code in PRECISE, (job_id, what, job.error_code, job.error)
            ended = job.completed_at.timestamp() - (time.time() - (time.monotonic() - when))
            assert ended <= STALE_MS / 1000 + 60, (job_id, what, ended)
    untouched = [j for i, j in final.items() if i not in killed]
    assert all(j.status == Status.COMPLETE for j in untouched), [
        (j.id, j.error_code, j.error) for j in untouched if j.status != Status.COMPLETE
    ]

    # Nothing leaked.
    time.sleep(1.0)
    profiles = config.browser.runtime_profiles_dir
    assert not profiles.exists() or list(profiles.iterdir()) == []
    assert list(leases.list_leases(leases.RUNTIME)) == []
    assert list(leases.list_leases(leases.CONVERSATION)) == []
    staging = jobs_dir() / ".staging"
    assert not staging.exists() or list(staging.iterdir()) == []
    # A watchdog finishes its last reconcile after its worker died: give a loaded machine a
    # bounded while for that, then nothing of ours may be left.
    settle_until = time.monotonic() + 20
    while (
        our_processes(profiles) or our_processes(jobs_dir())
    ) and time.monotonic() < settle_until:
        time.sleep(0.25)
    assert our_processes(profiles) == []
    assert our_processes(jobs_dir()) == []
