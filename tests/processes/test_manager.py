"""Managed processes with real children: process groups, SIGTERM → grace → SIGKILL → verify,
escaped setsid children, bounded UTF-8 output, limits, and the owner's end."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from oraculum.core.errors import OracleError
from oraculum.processes import limits
from oraculum.processes.manager import ProcessManager

from .support import PY, alive, first_line, kill_escapee, started, until

IGNORES_TERM = (
    "import signal, time\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "print('ready')\n"
    "time.sleep(60)\n"
)
SLEEPER = "import time\nprint('ready')\ntime.sleep(60)\n"
# The leader starts a child in its own group and prints the child's pid.
FORKS = (
    "import subprocess, sys, time\n"
    "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
    "print(c.pid)\n"
    "time.sleep(60)\n"
)
# The leader starts a child that leaves the group with setsid, and prints its pid.
ESCAPES = (
    "import subprocess, sys, time\n"
    "c = subprocess.Popen([sys.executable, '-c', 'import os, time; os.setsid(); time.sleep(60)'])\n"
    "time.sleep(0.3)\n"
    "print(c.pid)\n"
    "time.sleep(60)\n"
)


@pytest.fixture
def manager() -> ProcessManager:
    made = ProcessManager(grace_s=0.5)
    yield made
    made.stop_all()


def test_start_runs_the_literal_argv_without_stdin(manager: ProcessManager, tmp_path: Path) -> None:
    code = "import sys, os; print(sys.argv[1:], os.getcwd(), repr(sys.stdin.read()))"
    record = manager.start(PY, ["-c", code, "$HOME", "a b", ";"], cwd=str(tmp_path))
    assert record["state"] == "running" and record["pid"] > 0
    until(lambda: manager.output(record["id"])["process"]["state"] == "exited", "exit")
    out = manager.output(record["id"])
    assert out["stdout"] == f"['$HOME', 'a b', ';'] {tmp_path} ''\n"
    assert out["process"]["exitCode"] == 0 and out["process"]["stopReason"] == "leader_exit_cleanup"


def test_a_child_leads_its_own_process_group(manager: ProcessManager) -> None:
    record = started(manager, SLEEPER)
    assert os.getpgid(record["pid"]) == record["pid"] != os.getpgid(0)


def test_a_server_that_ignores_sigterm_is_killed_after_the_grace(manager: ProcessManager) -> None:
    record = started(manager, IGNORES_TERM)
    stopped = manager.stop(record["id"])
    assert stopped["state"] == "signaled" and stopped["signal"] == "SIGKILL"
    assert stopped["stopReason"] == "explicit" and stopped["cleanupError"] is None
    assert not alive(record["pid"])


def test_a_grandchild_in_the_group_goes_with_it(manager: ProcessManager) -> None:
    record = started(manager, FORKS)
    grandchild = int(first_line(manager, record["id"]))
    assert alive(grandchild)
    stopped = manager.stop(record["id"])
    assert stopped["state"] == "signaled" and stopped["signal"] == "SIGTERM"
    assert not alive(grandchild) and stopped["escapedPids"] == []


def test_leader_exit_ends_the_rest_of_its_group(manager: ProcessManager) -> None:
    code = FORKS.rsplit("time.sleep(60)", 1)[0] + "sys.stdout.flush()\ntime.sleep(0.5)\n"
    record = started(manager, code)
    grandchild = int(first_line(manager, record["id"]))
    until(lambda: manager.output(record["id"])["process"]["state"] == "exited", "leader exit")
    assert not alive(grandchild)


def test_a_child_that_calls_setsid_is_reported_and_stopped(manager: ProcessManager) -> None:
    record = started(manager, ESCAPES)
    escapee = int(first_line(manager, record["id"]))
    try:
        stopped = manager.stop(record["id"])
        assert stopped["escapedPids"] == [escapee]
        assert stopped["state"] == "signaled" and stopped["cleanupError"] is None
        assert not alive(escapee)  # out of the group's reach, not of its mark
    finally:
        kill_escapee(escapee)


def test_output_is_bounded_utf8_with_the_omitted_count(manager: ProcessManager) -> None:
    code = "import sys; sys.stdout.write('é' * 40000); sys.stderr.write('x' * 10)"
    record = manager.start(PY, ["-c", code])
    until(lambda: manager.output(record["id"])["process"]["state"] == "exited", "exit")
    out = manager.output(record["id"])
    shown = out["stdout"].encode()
    assert set(out["stdout"]) == {"é"} and len(shown) <= limits.OUTPUT_CALL_BYTES
    assert out["stdoutOmittedBytes"] == 80000 - len(shown)
    assert out["stderr"] == "x" * 10 and out["stderrOmittedBytes"] == 0
    small = manager.output(record["id"], max_bytes=5)
    assert small["stdout"] == "éé" and small["stdoutOmittedBytes"] == 80000 - 4


@pytest.mark.parametrize(
    "args",
    [
        ["x"] * limits.ARGV_ITEMS,
        ["y" * (limits.ARG_ITEM_BYTES + 1)],
        ["€" * 2667],  # 8,001 bytes in 2,667 characters
        ["z" * 7000] * 10,
    ],
    ids=["items", "item-bytes", "item-utf8-bytes", "total-bytes"],
)
def test_argv_limits_are_refused(manager: ProcessManager, args: list[str]) -> None:
    with pytest.raises(OracleError) as caught:
        manager.start(PY, args)
    assert caught.value.code == "process_argv_too_large"
    assert manager.list_records() == []


def test_nul_bytes_and_bad_cwd_are_refused(manager: ProcessManager, tmp_path: Path) -> None:
    for args, cwd in ((["a\0b"], None), ([], str(tmp_path / "missing"))):
        with pytest.raises(OracleError) as caught:
            manager.start(PY, args, cwd=cwd)
        assert caught.value.code == "invalid_argument"


def test_at_most_eight_run_at_once(manager: ProcessManager) -> None:
    for _ in range(limits.MAX_ACTIVE):
        manager.start(PY, ["-c", "import time; time.sleep(60)"])
    with pytest.raises(OracleError) as caught:
        manager.start(PY, ["-c", "pass"])
    assert caught.value.code == "process_limit" and caught.value.retryable


def test_records_are_capped_oldest_finished_first(manager: ProcessManager) -> None:
    ids = []
    for _ in range(limits.MAX_RECORDS + 2):
        record = manager.start(PY, ["-c", "pass"])
        ids.append(record["id"])
        until(lambda i=record["id"]: manager.output(i)["process"]["state"] == "exited", "exit")
    kept = [r["id"] for r in manager.list_records()]
    assert kept == ids[2:]
    with pytest.raises(OracleError) as caught:
        manager.output(ids[0])
    assert caught.value.code == "process_not_found"


def test_a_missing_executable_is_a_start_failure(manager: ProcessManager) -> None:
    with pytest.raises(OracleError) as caught:
        manager.start("/nonexistent/tool", [])
    assert caught.value.code == "process_start_failed"
    [record] = manager.list_records()
    assert record["state"] == "start_failed"


def test_stop_all_stops_everything_and_refuses_new_starts(manager: ProcessManager) -> None:
    records = [started(manager, IGNORES_TERM), started(manager, FORKS)]
    grandchild = int(first_line(manager, records[1]["id"]))
    ended = manager.stop_all()
    assert sorted(r["id"] for r in ended) == sorted(r["id"] for r in records)
    assert {r["stopReason"] for r in ended} == {"session_shutdown"}
    assert not any(alive(r["pid"]) for r in records) and not alive(grandchild)
    with pytest.raises(OracleError) as caught:
        manager.start(PY, ["-c", "pass"])
    assert caught.value.code == "process_unsupported"


def test_an_escapee_is_named_when_the_leader_exits_on_its_own(manager: ProcessManager) -> None:
    # The leader outlives one descendant snapshot (taken every second), then exits.
    code = ESCAPES.rsplit("time.sleep(60)", 1)[0] + "sys.stdout.flush()\ntime.sleep(1.5)\n"
    record = started(manager, code)
    escapee = int(first_line(manager, record["id"]))
    try:
        until(lambda: manager.output(record["id"])["process"]["state"] == "exited", "exit")
        ended = manager.output(record["id"])["process"]
        assert ended["stopReason"] == "leader_exit_cleanup" and ended["escapedPids"] == [escapee]
        assert not alive(escapee)
    finally:
        kill_escapee(escapee)


def test_windows_is_refused() -> None:
    from oraculum.processes.manager import refuse_windows

    with pytest.raises(OracleError) as caught:
        refuse_windows("nt")
    assert caught.value.code == "process_unsupported"
    refuse_windows("posix")  # and nothing else is


def test_a_shell_command_line_as_the_executable_hints_at_bash_c(
    manager: ProcessManager,
) -> None:
    """Issue 38 §11: `proc start "ls | head"` is not a program; the refusal says how to run it."""
    with pytest.raises(OracleError) as caught:
        manager.start("ls -la | head", [])
    assert caught.value.code == "process_start_failed"
    assert "bash -c 'ls -la | head'" in (caught.value.suggested_next_step or "")
