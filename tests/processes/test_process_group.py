"""The one way a child is started in its own process group and ended, against real children:
spawn_group's session, streams and descriptors; end_group's TERM → grace → KILL → verify,
a grandchild in the group, a failure reported; the worker's terminate on the same end."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from oraculum.core.process_group import end_group, hurry_group, spawn_group
from oraculum.jobs.model import WorkerIdentity
from oraculum.jobs.process import process_start_time, terminate

from .support import PY, alive, until

IGNORES_TERM = (
    "import signal, time\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "print('ready', flush=True)\n"
    "time.sleep(60)\n"
)
# The leader starts a child that stays in its group and prints the child's pid.
FORKS = (
    "import subprocess, sys, time\n"
    "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
    "print(c.pid, flush=True)\n"
    "time.sleep(60)\n"
)
# What the child finds about itself: its session, group, stdin, environment and cwd.
SELF = (
    "import json, os, sys\n"
    "print(json.dumps({'sid': os.getsid(0), 'pgid': os.getpgid(0), 'pid': os.getpid(),\n"
    "  'stdin': sys.stdin.read(), 'mark': os.environ.get('MARK'), 'cwd': os.getcwd()}))\n"
)


@pytest.fixture
def children() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Children a test started; whatever outlives the test is killed with its group."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for child in started:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()


def _line(child: subprocess.Popen[bytes]) -> str:
    assert child.stdout is not None
    return child.stdout.readline().decode().strip()


def _forked(children: list[subprocess.Popen[bytes]]) -> tuple[subprocess.Popen[bytes], int]:
    """A leader of its own group with a child in that group: (the leader, the child's pid)."""
    leader = spawn_group([PY, "-c", FORKS], stdout=subprocess.PIPE)
    children.append(leader)
    return leader, int(_line(leader))


def test_the_child_leads_its_own_session_with_stdin_closed(tmp_path: Path) -> None:
    child = spawn_group(
        [PY, "-c", SELF], env={**os.environ, "MARK": "m1"}, cwd=tmp_path, stdout=subprocess.PIPE
    )
    out, _ = child.communicate(timeout=30)
    found = json.loads(out)
    assert found["sid"] == found["pgid"] == found["pid"] == child.pid
    assert found["stdin"] == ""  # /dev/null, never this process's terminal
    assert (found["mark"], found["cwd"]) == ("m1", str(tmp_path))


def test_a_log_named_for_both_streams_is_private_appended_and_in_order(tmp_path: Path) -> None:
    log = tmp_path / "child.log"
    code = "import sys\nprint('out', flush=True)\nprint('err', file=sys.stderr, flush=True)\n"
    spawn_group([PY, "-c", code], stdout=log, stderr=log).wait(30)
    spawn_group([PY, "-c", code], stdout=log, stderr=log).wait(30)
    assert log.read_text() == "out\nerr\n" * 2
    assert stat.S_IMODE(log.stat().st_mode) == 0o600


def test_only_the_passed_descriptors_reach_the_child(tmp_path: Path) -> None:
    passed_r, passed_w = os.pipe()
    kept_r, kept_w = os.pipe()
    os.set_inheritable(kept_r, True)  # inheritable, yet not passed: it must stay ours
    code = (
        "import os, sys\n"
        "def is_open(fd):\n"
        "    try:\n"
        "        os.fstat(fd)\n"
        "        return True\n"
        "    except OSError:\n"
        "        return False\n"
        "print(is_open(int(sys.argv[1])), is_open(int(sys.argv[2])))\n"
    )
    try:
        child = spawn_group(
            [PY, "-c", code, str(passed_r), str(kept_r)],
            stdout=subprocess.PIPE,
            pass_fds=(passed_r,),
        )
        out, _ = child.communicate(timeout=30)
    finally:
        for fd in (passed_r, passed_w, kept_r, kept_w):
            os.close(fd)
    assert out.decode().split() == ["True", "False"]


def test_a_start_failure_is_an_oserror_and_leaks_no_descriptor(tmp_path: Path) -> None:
    before = len(os.listdir("/proc/self/fd"))
    with pytest.raises(OSError):
        spawn_group([str(tmp_path / "missing")], stdout=tmp_path / "log", stderr=tmp_path / "log")
    assert len(os.listdir("/proc/self/fd")) == before


def test_a_child_ignoring_term_is_killed_and_verified_gone(
    children: list[subprocess.Popen[bytes]],
) -> None:
    child = spawn_group([PY, "-c", IGNORES_TERM], stdout=subprocess.PIPE)
    children.append(child)
    assert _line(child) == "ready"
    end = end_group(child.pid, lambda: child.poll() is not None, grace_s=0.3, verify_s=10)
    assert (end.ok, end.killed, end.error) == (True, True, None)
    assert child.returncode == -signal.SIGKILL
    assert not alive(child.pid)


def test_a_grandchild_in_the_group_is_ended_with_it(
    children: list[subprocess.Popen[bytes]],
) -> None:
    child, grandchild = _forked(children)
    assert alive(grandchild) and os.getpgid(grandchild) == child.pid
    end = end_group(child.pid, lambda: child.poll() is not None, grace_s=5, verify_s=10)
    assert (end.ok, end.killed) == (True, False)  # SIGTERM was enough for both
    until(lambda: not alive(grandchild), "the grandchild's end")


def test_a_leader_whose_exit_never_arrives_is_a_reported_failure(
    children: list[subprocess.Popen[bytes]],
) -> None:
    child = spawn_group([PY, "-c", "import time; time.sleep(60)"])
    children.append(child)
    end = end_group(child.pid, lambda: False, grace_s=0.1, verify_s=0.5)
    assert (end.ok, end.killed) == (False, True)
    assert end.error == "the leader's exit status never arrived"
    assert child.wait(10) == -signal.SIGTERM  # it did end; only its waiter was never asked


def test_hurry_signals_the_whole_group_without_waiting(
    children: list[subprocess.Popen[bytes]],
) -> None:
    child, grandchild = _forked(children)
    hurry_group(child.pid)
    assert child.wait(10) == -signal.SIGTERM
    until(lambda: not alive(grandchild), "the grandchild's end")
    hurry_group(child.pid)  # a group already gone is no error


def test_terminating_a_worker_ends_its_group_and_spares_a_pid_that_is_not_a_leader(
    children: list[subprocess.Popen[bytes]],
) -> None:
    worker, grandchild = _forked(children)
    started = process_start_time(worker.pid)
    assert started is not None
    assert terminate(WorkerIdentity(pid=worker.pid, start_time=started, nonce="n"), grace_s=5)
    until(lambda: not alive(grandchild), "the worker group's end")
    # A process that does not lead its group (the grandchild of a fresh leader) is stopped
    # alone: its leader, in the same group, is never signalled.
    leader, member = _forked(children)
    member_start = process_start_time(member)
    assert member_start is not None
    assert terminate(WorkerIdentity(pid=member, start_time=member_start, nonce="n"), grace_s=5)
    assert leader.poll() is None and not alive(member)
