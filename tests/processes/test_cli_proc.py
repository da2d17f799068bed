"""`oraculum proc` from a shell: the session's supervisor owns the processes past the command
that started them, sessions are kept apart, and the session's end (shutdown, SIGTERM, idle)
stops everything."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import psutil
import pytest

from oraculum.core.project import project_id
from oraculum.processes import supervisor

from .support import alive, until

pytestmark = pytest.mark.slow

ORACULUM = str(Path(sys.executable).with_name("oraculum"))
SLEEPER = ["-c", "import time; print('ready', flush=True); time.sleep(60)"]
# Starts a descendant that double-forks out of its session (`setsid -f`), which writes its pid
# to the file named by argv[1], then sleeps.
DOUBLE_FORK = (
    "import subprocess, sys, time\n"
    'code = \'import os, sys, time; open(sys.argv[1], "w").write(str(os.getpid())); '
    "time.sleep(60)'\n"
    "subprocess.run(['setsid', '-f', sys.executable, '-c', code, sys.argv[1]], check=True)\n"
    "time.sleep(60)\n"
)


def proc(project: Path, *args: str, session: str = "shell", check: bool = True) -> Any:
    done = subprocess.run(
        [ORACULUM, "--json", "proc", *args, "--session", session]
        if args[0] != "start"
        else [ORACULUM, "--json", "proc", "start", "--session", session, "--", *args[1:]],
        capture_output=True,
        text=True,
        cwd=project,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    if check:
        assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout) | {"exit": done.returncode}


def supervisor_of(project: Path, session: str) -> psutil.Process | None:
    wanted = ["-m", "oraculum.processes.supervisor", project_id(project), session]
    for candidate in psutil.process_iter(["cmdline"]):
        if (candidate.info["cmdline"] or [])[1:] == wanted:
            return candidate
    return None


def socket_path(project: Path, session: str) -> Path:
    return supervisor.socket_dir() / supervisor.socket_name(project_id(project), session)


@pytest.fixture(autouse=True)
def shut_down(project: Path) -> Any:
    yield
    for session in ("shell", "other"):
        proc(project, "shutdown", session=session, check=False)


def test_start_outlives_the_command_and_stop_ends_it(project: Path) -> None:
    started = proc(project, "start", sys.executable, *SLEEPER)["process"]
    assert started["state"] == "running" and started["cwd"] == str(project)
    until(lambda: "ready" in proc(project, "output", started["id"])["stdout"], "output")
    mode = socket_path(project, "shell").stat().st_mode & 0o777
    assert mode == 0o600 and supervisor_of(project, "shell") is not None
    listed = proc(project, "list")["processes"]
    assert [p["id"] for p in listed] == [started["id"]]
    stopped = proc(project, "stop", started["id"])["process"]
    assert stopped["state"] == "signaled" and not alive(started["pid"])


def test_sessions_do_not_see_each_others_processes(project: Path) -> None:
    mine = proc(project, "start", sys.executable, *SLEEPER)["process"]
    assert proc(project, "list", session="other")["processes"] == []
    refused = proc(project, "stop", mine["id"], session="other", check=False)
    assert refused["exit"] == 3 and refused["error"]["code"] == "process_not_found"
    assert alive(mine["pid"])


def test_shutdown_stops_everything_and_the_supervisor(project: Path) -> None:
    started = proc(project, "start", sys.executable, *SLEEPER)["process"]
    owner = supervisor_of(project, "shell")
    assert owner is not None
    proc(project, "shutdown")
    until(lambda: not alive(started["pid"]), "the process stopped")
    until(lambda: not owner.is_running() or owner.status() == psutil.STATUS_ZOMBIE, "exit")
    assert not socket_path(project, "shell").exists()


def test_sigterm_to_the_supervisor_stops_its_processes(project: Path) -> None:
    started = proc(project, "start", sys.executable, *SLEEPER)["process"]
    owner = supervisor_of(project, "shell")
    assert owner is not None
    os.kill(owner.pid, signal.SIGTERM)
    until(lambda: not alive(started["pid"]), "the process stopped with its owner")


def test_an_idle_supervisor_exits(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(supervisor.IDLE_ENV, "1")
    started = proc(project, "start", sys.executable, "-c", "pass")["process"]
    owner = supervisor_of(project, "shell")
    assert owner is not None and started["id"] == "proc-1"
    until(lambda: not owner.is_running() or owner.status() == psutil.STATUS_ZOMBIE, "idle exit")


def test_a_session_is_required(project: Path) -> None:
    done = subprocess.run(
        [ORACULUM, "--json", "proc", "list"],
        capture_output=True,
        text=True,
        cwd=project,
        timeout=60,
        env={k: v for k, v in os.environ.items() if k != "ORACULUM_SESSION"},
    )
    assert done.returncode != 0
    assert json.loads(done.stdout)["error"]["code"] == "persisted_session_required"


# Nothing outlives its owner unseen (issue 41 §4) ---------------------------------------------


def _double_forked(project: Path, tmp_path: Path) -> tuple[dict[str, Any], int]:
    """A started process and the pid of its `setsid -f` descendant."""
    pidfile = tmp_path / "escapee.pid"
    started = proc(project, "start", sys.executable, "-c", DOUBLE_FORK, str(pidfile))["process"]
    until(lambda: pidfile.exists() and pidfile.read_text().isdigit(), "the escapee's pid")
    return started, int(pidfile.read_text())


def test_a_double_forked_descendant_is_reported_and_stopped(project: Path, tmp_path: Path) -> None:
    started, escapee = _double_forked(project, tmp_path)
    owner = supervisor_of(project, "shell")
    assert owner is not None
    # A child subreaper: the orphaned escapee became the supervisor's child, not init's.
    assert psutil.Process(escapee).ppid() == owner.pid
    stopped = proc(project, "stop", started["id"])["process"]
    assert stopped["escapedPids"] == [escapee] and stopped["state"] == "signaled"
    assert not alive(escapee)
    assert "left the process group" in proc_text(project, "list")


def proc_text(project: Path, *args: str) -> str:
    done = subprocess.run(
        [ORACULUM, "proc", *args, "--session", "shell"], capture_output=True, text=True, cwd=project
    )
    return done.stdout


def test_a_sigkilled_supervisors_processes_are_adopted_listed_and_shut_down(
    project: Path, tmp_path: Path
) -> None:
    started, escapee = _double_forked(project, tmp_path)
    owner = supervisor_of(project, "shell")
    assert owner is not None
    owner.kill()
    until(lambda: not owner.is_running() or owner.status() == psutil.STATUS_ZOMBIE, "killed")
    assert alive(started["pid"]) and alive(escapee)  # left behind, unowned

    listed = proc(project, "list")["processes"]  # a new supervisor adopts them
    assert [(p["id"], p["pid"], p["state"]) for p in listed] == [
        (started["id"], started["pid"], "running")
    ]
    assert listed[0]["adopted"] is True
    assert supervisor_of(project, "shell") is not None

    ended = proc(project, "shutdown")
    until(lambda: not alive(started["pid"]) and not alive(escapee), "everything stopped")
    assert [p["escapedPids"] for p in ended["processes"]] == [[escapee]]
    assert supervisor.journal(project_id(project), "shell").entries() == []  # all verified
