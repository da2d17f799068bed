"""The start-up hook: nothing loaded when nothing is scheduled; a runner when work is pending."""

from __future__ import annotations

from pathlib import Path

from fresh_process import loaded_modules, present
from oraculum.scheduler.control import mark_pending, pending_path, runner_alive
from oraculum.scheduler.hook import restart_runner_if_pending

HEAVY = ("sqlalchemy", "apscheduler", "oraculum.jobs", "oraculum.scheduler.store", "psutil")


def test_nothing_scheduled_costs_no_import(oraculum_home: Path, tmp_path: Path) -> None:
    probe = (
        "from oraculum.scheduler.hook import restart_runner_if_pending\n"
        "assert restart_runner_if_pending() is False\n"
    )
    assert present(loaded_modules(tmp_path, probe), HEAVY) == []


def test_pending_work_without_a_runner_starts_one(sched) -> None:  # type: ignore[no-untyped-def]
    mark_pending()
    assert restart_runner_if_pending() is True
    # The runner finds the store empty, so it leaves and clears the marker.
    sched.wait_for(lambda: not pending_path().exists(), what="the runner to clear the marker")
    sched.wait_for(lambda: not runner_alive(), what="the idle runner to exit")
    assert "scheduler runner" in (pending_path().parent / "runner.log").read_text()
