"""The runner leaves only when nothing is live, and lets its lock go under the submit lock, so
a submission that comes after it decided to leave finds no runner and starts one."""

from __future__ import annotations

from pathlib import Path

from oraculum.scheduler import control
from oraculum.scheduler.doorbell import Doorbell
from oraculum.scheduler.runner import Runner
from oraculum.scheduler.store import Store


def _runner() -> Runner:
    return Runner(Store(), Doorbell(), grace_s=60, timeout_s=60)


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
        {
            "id": "0123456789abc",
            "project_id": "p",
            "session_id": "s",
            "prompt": "later",
            "payload": None,
            "timing": {"kind": "once", "start": "2100-01-01T00:00:00+00:00"},
            "state": "new",
            "created_at": "2026-12-01T00:00:00+00:00",
        }
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
