"""Config and job helpers for tests that run real workers (importable: `from homes import ...`)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
import pytest

from oraculum.core.config import Config, load_config
from oraculum.core.paths import global_config_path
from oraculum.jobs.model import Job, Status
from oraculum.jobs.store import JobStore
from oraculum.scheduler.control import runner_alive, runner_pid_path

FAST = {
    "worker": {
        "heartbeatIntervalMs": 200,
        "staleHeartbeatMs": 3000,
        "noWorkerGraceMs": 1000,
        "terminateGraceMs": 1000,
    },
}


# Worker timings for jobs that drive real Chromium against the simulator. The heartbeat keeps
# its default (10 s), as in use; a test of stale workers sets its own.
SIMULATOR_WORKER = {
    "pollMs": 250,
    "sendAcceptTimeoutMs": 5000,
    "urlVerifyTimeoutMs": 5000,
    "readinessTimeoutMs": 8000,
    "completionTimeoutMs": 60000,
    "staleStopMs": 3000,
}


# Debian's chromium-headless-shell: the same Chromium build without the browser's own UI. The
# suite starts Chromium hundreds of times, and the shell starts on about a third of the CPU
# (no UI renderer): tests that drive a headless browser use it when it is installed (the dev
# set-up installs it), the full `chromium` otherwise. Headed runs, the managed and relay
# transports, and tests that set an executable keep their own.
HEADLESS_SHELL = Path("/usr/bin/chromium-headless-shell")
_OWN_BROWSER_KEYS = {"executablePath", "transport", "managed", "relay", "runMode"}


def headless_browser() -> Path:
    """The Chromium the tests run headless: the headless shell when installed."""
    from oraculum.browser.chromium import resolve_executable

    return HEADLESS_SHELL if os.access(HEADLESS_SHELL, os.X_OK) else resolve_executable()


def write_global_config(data: dict[str, Any]) -> Config:
    """Write ``data`` as the global config of the current oraculum home and load it (with the
    tests' headless browser unless ``data`` says how the browser runs)."""
    browser = data.get("browser", {})
    if not _OWN_BROWSER_KEYS & browser.keys():
        data = {**data, "browser": {**browser, "executablePath": str(headless_browser())}}
    path = global_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return load_config().config


def write_fast_config(
    extra: dict[str, Any] | None = None, *, capacity: int | None = None
) -> Config:
    """Write the global config of the current oraculum home: fast timings plus ``extra``."""
    data: dict[str, Any] = json.loads(json.dumps(FAST))
    if capacity is not None:
        data["browser"] = {"maxConcurrentJobs": capacity}
    for section, values in (extra or {}).items():
        data.setdefault(section, {}).update(values)
    return write_global_config(data)


def finished(job_id: str, timeout: float = 90.0) -> Job:
    """Wait until the job has ended and its clean-up is done; fail the test if it does not."""
    store = JobStore()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = store.load(job_id)
        if job.is_terminal and not job.cleanup_pending:
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not finish: {store.load(job_id).phase}")


@pytest.fixture(name="project")
def bare_project(tmp_path: Path) -> Path:
    """An empty project directory, for tests whose oraculum home another fixture sets up (a
    module that wants it imports it; the shared ``project`` fixture also isolates the home)."""
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.fixture(name="home")
def private_home(oraculum_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HOME beside a fresh oraculum home: `~` and the real-browser trees resolve
    inside the test's tmp dir (a module that wants it imports it)."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


def log_of(job: Job) -> str:
    """The job's worker log (what a failed assertion shows)."""
    return Path(job.logs_dir, "worker.log").read_text()


def complete(job: Job) -> Job:
    """Wait for the job and require that it completed (its worker log shown when not)."""
    done = finished(job.id)
    assert done.status == Status.COMPLETE, f"{done.error}\n{log_of(done)}"
    return done


def watchdog_of(store: JobStore, job_id: str, timeout: float = 10.0) -> psutil.Process:
    """The watchdog process of the job's worker (found by its command line)."""
    job_dir = str(store.paths(job_id).dir)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for proc in psutil.process_iter(["cmdline"]):
            cmdline = proc.info.get("cmdline") or []
            if "oraculum.worker" in cmdline and "watch" in cmdline and job_dir in cmdline:
                return proc
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} has no watchdog")


def kill_watchdog(store: JobStore, job_id: str) -> None:
    """SIGKILL the job's watchdog, so a test sees what reconcile alone does."""
    proc = watchdog_of(store, job_id)
    proc.kill()
    deadline = time.monotonic() + 5
    # The worker is its parent and does not reap it: a zombie is a dead watchdog.
    while time.monotonic() < deadline:
        try:
            if proc.status() == psutil.STATUS_ZOMBIE:
                return
        except psutil.NoSuchProcess:
            return
        time.sleep(0.02)
    raise AssertionError(f"watchdog {proc.pid} survived SIGKILL")


def run_cli(
    *args: str | bytes,
    cwd: Path,
    stdin: bytes | None = None,
    timeout: float = 120,
    preexec_fn: Callable[[], object] | None = None,
) -> tuple[int, dict[str, Any]]:
    """The real `oraculum --json …` as a process (argv may hold bytes that are not UTF-8;
    ``preexec_fn`` runs in the child before oraculum starts, e.g. to limit its memory)."""
    done = subprocess.run(
        [str(Path(sys.executable).with_name("oraculum")), "--json", *args],
        cwd=cwd,
        input=stdin if stdin is not None else b"",
        capture_output=True,
        timeout=timeout,
        check=False,
        preexec_fn=preexec_fn,
    )
    assert b"Traceback" not in done.stderr, done.stderr.decode(errors="replace")
    return done.returncode, json.loads(done.stdout)


CHROME_EPOCH_S = 11_644_473_600


def write_cookie_store(profile: Path, *cookies: tuple[str, str, float]) -> None:
    """A Chromium-shaped cookie store in ``profile``: (name, host, unix expiry; 0 = session)."""
    import sqlite3

    (profile / "Default").mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(profile / "Default" / "Cookies")
    db.execute("CREATE TABLE cookies (name TEXT, host_key TEXT, expires_utc INTEGER)")
    db.executemany(
        "INSERT INTO cookies VALUES (?, ?, ?)",
        [(n, h, int((e + CHROME_EPOCH_S) * 1e6) if e else 0) for n, h, e in cookies],
    )
    db.commit()
    db.close()


def kill_if_ours(pid: int, marker: str | None) -> None:
    """Kill ``pid`` when its command line holds ``marker`` (any process when None), woken
    first if a test stopped it; gone already is fine."""
    with contextlib.suppress(psutil.Error, ProcessLookupError):
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_STOPPED:
            os.kill(pid, signal.SIGCONT)
        if marker is None or marker in " ".join(proc.cmdline()):
            proc.kill()


def stop_scheduler_runner() -> None:
    """Stop the current home's scheduler runner, if one is up: a schedule a test left live
    would keep it running after the test (it exits only when no schedule is live)."""
    if runner_pid_path().exists() and runner_alive():
        with contextlib.suppress(ValueError, OSError):
            kill_if_ours(int(runner_pid_path().read_text()), "oraculum.scheduler")
