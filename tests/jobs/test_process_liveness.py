"""Worker liveness from /proc on Linux: the same answers psutil gives, without importing it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from oraculum.jobs import process
from oraculum.jobs.model import WorkerIdentity
from oraculum.jobs.process import Liveness, liveness, process_start_time

pytestmark = pytest.mark.skipif(not process._USE_PROC, reason="Linux /proc only")


def identity_of(pid: int, start_time: float | None = None) -> WorkerIdentity:
    started = process_start_time(pid) if start_time is None else start_time
    assert started is not None
    return WorkerIdentity(pid=pid, start_time=started, nonce="n")


def test_start_times_match_psutils(tmp_path: Path) -> None:
    # A name with ")" and spaces: the parser must not take them for the end of the name.
    odd = tmp_path / "x) y (z"
    odd.symlink_to(Path("/bin/sleep").resolve())
    child = subprocess.Popen([str(odd), "30"])
    try:
        for pid in (os.getpid(), os.getppid(), child.pid):
            assert process_start_time(pid) == pytest.approx(
                psutil.Process(pid).create_time(), abs=1e-6
            )
        assert liveness(identity_of(child.pid)) == Liveness.ALIVE
    finally:
        child.kill()
        child.wait()


def test_a_recycled_pid_an_exited_process_and_a_zombie() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    mine = identity_of(child.pid)
    assert liveness(identity_of(os.getpid(), start_time=mine.start_time - 3600)) == (
        Liveness.MISMATCH  # the pid runs, but it started at another time: another process
    )
    deadline = time.monotonic() + 10
    while psutil.Process(child.pid).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "the child never exited"
        time.sleep(0.01)
    assert liveness(mine) == Liveness.DEAD  # exited, not yet reaped
    child.wait()
    assert liveness(mine) == Liveness.DEAD  # gone
    assert process_start_time(child.pid) is None


def test_checking_a_worker_does_not_load_psutil() -> None:
    code = (
        "import os, sys\n"
        "from oraculum.jobs.model import WorkerIdentity\n"
        "from oraculum.jobs.process import liveness, load_liveness, process_start_time\n"
        "load_liveness()\n"
        "started = process_start_time(os.getpid())\n"
        "me = WorkerIdentity(pid=os.getpid(), start_time=started, nonce='n')\n"
        "print(liveness(me).value, 'psutil' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["alive", "False"]


def test_a_browser_still_starting_on_a_profile_is_found_without_its_lock(tmp_path: Path) -> None:
    """A worker killed while launching its browser leaves one that has not made its
    `SingletonLock` yet; teardown must still stop it, or it writes the removed profile back."""
    profile = tmp_path / "profile"
    profile.mkdir()
    starting = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)", f"--user-data-dir={profile}"]
    )
    try:
        assert not (profile / "SingletonLock").is_symlink()
        assert process.kill_profile_processes(profile) == []
        starting.wait(timeout=5)  # it is gone (TimeoutExpired if it still ran)
        assert not psutil.pid_exists(starting.pid)
    finally:
        starting.kill()
