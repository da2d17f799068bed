"""The real runner process and SQLite store, driven through the real CLI.

Each test submits with `oraculum schedule submit`, lets the detached runner (started on
demand) do its work, and reads the store and the notices it left.
"""

from __future__ import annotations

import json
import os
import signal
import time
from datetime import datetime, timedelta
from itertools import pairwise
from pathlib import Path

import pytest

from oraculum.scheduler.control import pending_path, runner_alive

pytestmark = pytest.mark.slow

SH = "/bin/sh"


def ended(rows: list[dict[str, object]]) -> bool:
    return all(r["outcome"] != "running" and r["woken_at"] for r in rows)


def when(row: dict[str, object]) -> datetime:
    return datetime.fromisoformat(str(row["scheduled_for"]))


def test_in_2s_runs_once_and_wakes_once(sched) -> None:  # type: ignore[no-untyped-def]
    sid = sched.submit(
        "--prompt",
        "Report the greeting.",
        "--in",
        "2s",
        "--",
        SH,
        "-c",
        "echo hello; echo oops >&2",
    )
    sched.wait_for(lambda: sched.state(sid) == "finished", what="the schedule to finish")
    rows = sched.wait_for(lambda: (r := sched.occurrences(sid)) and ended(r) and r, what="the wake")
    sched.wait_for(lambda: not runner_alive(), what="the idle runner to exit")
    rows = sched.occurrences(sid)
    assert [r["outcome"] for r in rows] == ["exit"]
    detail = rows[0]["detail"]
    assert detail["exit_code"] == 0
    assert detail["stdout"]["preview"] == "hello\n"
    assert detail["stderr"]["preview"] == "oops\n"
    assert Path(detail["stdout"]["path"]).read_text() == "hello\n"
    assert oct(Path(detail["stdout"]["path"]).stat().st_mode & 0o777) == "0o600"
    # It ran at its time, not before.
    assert datetime.fromisoformat(rows[0]["started_at"]) >= when(rows[0])
    notices = sched.notices(sid)
    assert len(notices) == 1
    assert "Report the greeting." in notices[0].text and "hello" in notices[0].text
    assert notices[0].data["outcome"] == "exit"
    assert not pending_path().exists()  # the idle runner cleared the marker as it left

    # The session's `oraculum wait` gets the wake once; `schedule show` keeps it readable.
    code, waited = sched.cli("wait", "--timeout", "60")
    assert code == 0, waited
    assert "Report the greeting." in json.dumps(waited) and "hello" in json.dumps(waited)
    code, again = sched.cli("wait", "--timeout", "1")
    assert code == 5 and again["error"]["code"] == "wait_timeout"  # told once, not twice
    code, shown = sched.cli("schedule", "show", sid)
    assert code == 0
    assert "Report the greeting." in shown["occurrenceList"][0]["wake"]
    assert shown["occurrenceList"][0]["noticeId"] == notices[0].id


def test_every_1s_count_3_runs_three_times(sched) -> None:  # type: ignore[no-untyped-def]
    sched.warm_runner()  # a runner late by more than a period would miss (see below)
    sid = sched.submit(
        "--prompt", "Count the runs.", "--in", "2s", "--every", "1s", "--count", "3",
        "--cwd", ".", "--", SH, "-c", "echo run >> runs.log",
    )  # fmt: skip
    sched.wait_for(
        lambda: len(r := sched.occurrences(sid)) == 3 and ended(r), what="three occurrences"
    )
    sched.wait_for(lambda: sched.state(sid) == "finished", what="the schedule to finish")
    rows = sched.occurrences(sid)
    assert [r["outcome"] for r in rows] == ["exit"] * 3
    times = [when(r) for r in rows]
    assert [b - a for a, b in pairwise(times)] == [timedelta(seconds=1)] * 2
    assert (sched.root / "runs.log").read_text() == "run\n" * 3
    assert len(sched.notices(sid)) == 3


def test_runner_killed_mid_payload_is_unknown_and_the_schedule_continues(sched) -> None:  # type: ignore[no-untyped-def]
    # The first occurrence hangs (its pid in payload.pid); the later ones return at once.
    sched.warm_runner()
    script = (
        "echo start >> runs.log; "
        "if [ ! -e slept ]; then touch slept; echo $$ > payload.pid; exec sleep 120; fi"
    )
    sid = sched.submit(
        "--prompt", "Check the hang.", "--in", "2s", "--every", "2s", "--count", "3",
        "--cwd", ".", "--", SH, "-c", script,
    )  # fmt: skip
    pid_file = sched.root / "payload.pid"
    sched.wait_for(lambda: pid_file.exists() and pid_file.read_text().strip(), what="payload")
    sched.extra_pids.append(int(pid_file.read_text()))
    os.kill(sched.runner_pid(), signal.SIGKILL)
    sched.wait_for(lambda: not runner_alive(), what="the runner's lock to go")
    assert sched.occurrences(sid)[0]["outcome"] == "running"

    code, _ = sched.cli("schedule", "list")  # any command restarts the runner
    assert code == 0
    sched.wait_for(
        lambda: len(r := sched.occurrences(sid)) == 3 and ended(r), what="all three occurrences"
    )
    outcomes = [r["outcome"] for r in sched.occurrences(sid)]
    assert outcomes[0] == "unknown"
    assert "exit" in outcomes[1:], outcomes  # the schedule went on after the restart
    assert set(outcomes[1:]) <= {"exit", "missed", "skipped"}, outcomes
    # The first occurrence never ran again: one start per occurrence that ran.
    assert (sched.root / "runs.log").read_text() == "start\n" * (1 + outcomes.count("exit"))
    unknown = [n for n in sched.notices(sid) if n.data["outcome"] == "unknown"]
    assert len(unknown) == 1 and "not retried" in unknown[0].text
    assert len(sched.notices(sid)) == 3


def test_asleep_runner_records_missed_occurrences_once(sched, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("ORACULUM_SCHEDULER_GRACE_S", "1")  # the runner inherits it
    sched.warm_runner()  # up before the first occurrence
    sid = sched.submit(
        "--prompt", "Count the runs.", "--in", "2s", "--every", "1s", "--count", "6",
        "--cwd", ".", "--", SH, "-c", "echo run >> runs.log",
    )  # fmt: skip
    sched.wait_for(lambda: (r := sched.occurrences(sid)) and ended(r), what="the first one")
    runner = sched.runner_pid()
    os.kill(runner, signal.SIGSTOP)  # the machine sleeps past the next occurrences
    try:
        time.sleep(5)
    finally:
        os.kill(runner, signal.SIGCONT)
    sched.wait_for(
        lambda: len(r := sched.occurrences(sid)) == 6 and ended(r), what="six occurrences"
    )
    rows = sched.occurrences(sid)
    outcomes = [r["outcome"] for r in rows]
    assert outcomes[0] == "exit"
    assert outcomes.count("missed") >= 2, outcomes
    assert set(outcomes) <= {"exit", "missed"}, outcomes
    assert len({r["scheduled_for"] for r in rows}) == 6  # each fire time recorded once
    assert all(r["detail"]["late_s"] > 1 for r in rows if r["outcome"] == "missed")
    runs = (sched.root / "runs.log").read_text().count("run\n")
    assert runs == outcomes.count("exit")  # missed ones were not run late
    assert len(sched.notices(sid)) == 6


def test_cancel_stops_future_occurrences(sched) -> None:  # type: ignore[no-untyped-def]
    sid = sched.submit("--prompt", "Heartbeat.", "--every", "1s")
    sched.wait_for(lambda: len(sched.occurrences(sid)) >= 2, what="two heartbeats")
    code, out = sched.cli("schedule", "cancel", sid)
    assert code == 0 and out["cancelled"] is True
    assert out["schedule"]["state"] == "cancelled" and out["schedule"]["nextRuns"] == []
    time.sleep(1)  # an occurrence already under way may still land
    settled = len(sched.occurrences(sid))
    sched.wait_for(lambda: not runner_alive(), what="the idle runner to exit")
    time.sleep(1.5)
    assert len(sched.occurrences(sid)) == settled
    # A heartbeat still being recorded when the next is due makes that one "skipped"; a runner
    # slowed down by a loaded machine may miss some.
    outcomes = [r["outcome"] for r in sched.occurrences(sid)]
    assert "heartbeat" in outcomes and set(outcomes) <= {"heartbeat", "skipped", "missed"}
    assert all(r["woken_at"] for r in sched.occurrences(sid))
    code, again = sched.cli("schedule", "cancel", sid)
    assert code == 0 and again["cancelled"] is False


def test_bad_input_is_refused_before_anything_is_stored(sched) -> None:  # type: ignore[no-untyped-def]
    cases = [
        (["--count", "3"], "schedule_timing_invalid"),
        (["--cron", "0 25 * * *"], "schedule_cron_invalid"),
        (["--cron", "0 9 * * *", "--tz", "Nowhere/Town"], "schedule_timezone_unknown"),
        (["--at", "2020-01-01T00:00:00Z"], "schedule_time_past"),
        (["--in", "1m", "--", "./relative-tool"], "schedule_payload_invalid"),
    ]
    for args, expected in cases:
        code, out = sched.cli("schedule", "submit", "--prompt", "x", *args)
        assert (code, out["error"]["code"]) == (2, expected), out
    code, out = sched.cli("schedule", "submit", "--prompt", "é" * 4001)
    assert (code, out["error"]["code"]) == (2, "prompt_too_large")
    code, listing = sched.cli("schedule", "list")
    assert (code, listing) == (0, {"schedules": []})
    assert not pending_path().exists() and not runner_alive()
    code, out = sched.cli("schedule", "show", "0000000000000")
    assert (code, out["error"]["code"]) == (3, "schedule_not_found")


def test_an_occurrence_due_while_the_previous_runs_is_skipped(sched) -> None:  # type: ignore[no-untyped-def]
    sched.warm_runner()
    sid = sched.submit(
        "--prompt", "Overlap.", "--in", "2s", "--every", "1s", "--count", "4",
        "--cwd", ".", "--", SH, "-c", "echo run >> runs.log; sleep 2.5",
    )  # fmt: skip
    sched.wait_for(
        lambda: len(r := sched.occurrences(sid)) == 4 and ended(r), what="four occurrences"
    )
    outcomes = [r["outcome"] for r in sched.occurrences(sid)]
    assert outcomes[0] == "exit" and "skipped" in outcomes, outcomes
    assert set(outcomes) <= {"exit", "skipped", "missed"}
    # Never two at once: each run started after the previous one ended.
    ran = [r for r in sched.occurrences(sid) if r["outcome"] == "exit"]
    for before, after in pairwise(ran):
        assert after["started_at"] >= before["ended_at"]
    assert (sched.root / "runs.log").read_text() == "run\n" * len(ran)


def test_a_payloads_double_forked_child_is_the_runners_and_ends_at_the_timeout(
    sched, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    import psutil

    monkeypatch.setenv("ORACULUM_SCHEDULER_TIMEOUT_S", "3")  # the runner inherits it
    sched.warm_runner()
    script = "setsid -f sh -c 'echo $$ > escapee.pid; exec sleep 120'; exec sleep 120"
    sid = sched.submit("--prompt", "Escape.", "--in", "1s", "--cwd", ".", "--", SH, "-c", script)
    pid_file = sched.root / "escapee.pid"
    sched.wait_for(lambda: pid_file.exists() and pid_file.read_text().strip(), what="escapee")
    escapee = psutil.Process(int(pid_file.read_text()))
    sched.extra_pids.append(escapee.pid)
    # A child subreaper: the orphaned escapee became the runner's child, not init's.
    assert escapee.ppid() == sched.runner_pid()
    sched.wait_for(lambda: ended(sched.occurrences(sid)), what="the occurrence to end")
    assert sched.occurrences(sid)[0]["outcome"] == "timeout"
    sched.wait_for(
        lambda: not escapee.is_running() or escapee.status() == psutil.STATUS_ZOMBIE,
        timeout=10,
        what="the escapee to end with its payload",
    )


def test_a_new_schedule_wakes_the_sleeping_runner(sched, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # The runner sleeps until its next fire time (an hour away here, so at most its 30 s cap).
    # A submission rings its doorbell: the new occurrence runs on time, within a grace far
    # shorter than that sleep, rather than being found missed when the runner wakes.
    monkeypatch.setenv("ORACULUM_SCHEDULER_GRACE_S", "10")  # the runner inherits it
    sched.warm_runner()
    time.sleep(1)  # the runner is asleep
    sid = sched.submit("--prompt", "On time.", "--in", "1s", "--", SH, "-c", "echo on-time")
    rows = sched.wait_for(lambda: (r := sched.occurrences(sid)) and ended(r) and r, what="it")
    assert [r["outcome"] for r in rows] == ["exit"], rows
    assert rows[0]["detail"]["stdout"]["preview"] == "on-time\n"


def test_a_runner_stopped_with_sigterm_lets_the_running_payload_finish(sched) -> None:  # type: ignore[no-untyped-def]
    sched.warm_runner()  # its reminder an hour away stays live
    script = "touch started; sleep 2; echo done"
    sid = sched.submit("--prompt", "Finish.", "--in", "1s", "--cwd", ".", "--", SH, "-c", script)
    sched.wait_for(lambda: (sched.root / "started").exists(), what="the payload to start")
    os.kill(sched.runner_pid(), signal.SIGTERM)
    sched.wait_for(lambda: not runner_alive(), what="the runner to stop")
    rows = sched.occurrences(sid)
    assert [r["outcome"] for r in rows] == ["exit"], rows  # finished, not left unknown
    assert rows[0]["detail"]["stdout"]["preview"] == "done\n" and rows[0]["woken_at"]
    assert pending_path().exists()  # the reminder is still due: the next command restarts it
