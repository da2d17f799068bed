"""The runner's loop in-process: it leaves only when nothing is live, letting its lock go under
the submit lock (so a submission after it decided to leave finds no runner and starts one), and
one damaged schedule does not stop the others."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from oraculum.scheduler import control
from oraculum.scheduler.doorbell import Doorbell
from oraculum.scheduler.runner import Runner
from oraculum.scheduler.store import Store, utc_now


def _runner() -> Runner:
    return Runner(Store(), Doorbell(), grace_s=60, timeout_s=60)


def _schedule(schedule_id: str, timing: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": schedule_id,
        "project_id": "proj",
        "session_id": "sess",
        "prompt": "later",
        "payload": None,
        "timing": timing,
        "state": "new",
        "created_at": "2026-12-01T00:00:00+00:00",
    }


def test_an_idle_runner_clears_the_marker_and_lets_its_lock_go(oraculum_home: Path) -> None:
    control.mark_pending()
    runner = _runner()
    try:
        with control.runner_lock() as release:
            assert release is not None and control.runner_alive()
            assert runner.try_exit(release) is True
            assert not control.runner_alive()  # already, before the process ends
            assert not control.pending_path().exists() and runner.stop.is_set()
    finally:
        runner.doorbell.close()


def test_a_live_schedule_keeps_the_runner(oraculum_home: Path) -> None:
    Store().add_schedule(
        _schedule("0123456789abc", {"kind": "once", "start": "2100-01-01T00:00:00+00:00"})
    )
    control.mark_pending()
    runner = _runner()
    try:
        with control.runner_lock() as release:
            assert release is not None
            assert runner.try_exit(release) is False
            assert control.runner_alive() and control.pending_path().exists()
            assert not runner.stop.is_set()
    finally:
        runner.doorbell.close()


def test_a_damaged_schedule_does_not_stop_the_others(oraculum_home: Path) -> None:
    store = Store()
    store.add_schedule(_schedule("0123456789abc", {"kind": "cron"}))  # no expression
    now = utc_now()
    store.add_schedule(_schedule("0123456789abd", {"kind": "now", "start": now.isoformat()}))
    runner = _runner()
    try:
        upcoming = runner.tick(now + timedelta(seconds=1))
        for thread in list(runner._running.values()):
            thread.join(timeout=60)
    finally:
        runner.doorbell.close()
    assert upcoming is not None  # the damaged one is tried again later
    [fired] = store.occurrences("0123456789abd")
    assert fired["outcome"] == "heartbeat" and fired["woken_at"]
    assert store.occurrences("0123456789abc") == []
