"""Fixtures for the scheduler's tests: a project with a session, the real CLI as a process, and
no runner or payload left alive after a test."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from homes import kill_if_ours, stop_scheduler_runner
from oraculum.core.project import find_project_root, project_id
from oraculum.scheduler.control import runner_pid_path
from oraculum.scheduler.store import Store
from oraculum.tasks import NoticeStore

ORACULUM = Path(sys.executable).with_name("oraculum")
SESSION = "sched-test"


class Sched:
    """The project under test and ways to look at what the runner did."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.project_id = project_id(find_project_root(root))
        self.extra_pids: list[int] = []

    def cli(self, *args: str) -> tuple[int, dict[str, Any]]:
        done = subprocess.run(
            [str(ORACULUM), "--json", *args],
            cwd=self.root,
            capture_output=True,
            timeout=120,
            check=False,
        )
        assert b"Traceback" not in done.stderr, done.stderr.decode(errors="replace")
        return done.returncode, json.loads(done.stdout)

    def submit(self, *args: str) -> str:
        code, out = self.cli("schedule", "submit", *args)
        assert code == 0, out
        return str(out["schedule"]["id"])

    def occurrences(self, schedule_id: str) -> list[dict[str, Any]]:
        return Store().occurrences(schedule_id)

    def state(self, schedule_id: str) -> str:
        return str(Store().schedule(schedule_id)["state"])

    def notices(self, schedule_id: str) -> list[Any]:
        return [
            n
            for n in NoticeStore().notices(self.project_id)
            if n.kind == "schedule" and n.source_id == schedule_id
        ]

    def warm_runner(self) -> None:
        """Start the runner ahead (a reminder an hour away keeps it alive), so occurrences a
        few seconds away do not wait for its start-up on a loaded machine."""
        sid = self.submit("--prompt", "Keeps the runner up.", "--in", "1h")
        wait_for(lambda: self.state(sid) == "active", what="a live runner")

    def runner_pid(self) -> int:
        return int(runner_pid_path().read_text())

    @staticmethod
    def wait_for(predicate: Callable[[], Any], *, timeout: float = 60.0, what: str = "") -> Any:
        return wait_for(predicate, timeout=timeout, what=what)


def wait_for(predicate: Callable[[], Any], *, timeout: float = 60.0, what: str = "") -> Any:
    """Poll until ``predicate()`` is truthy; fail the test at the deadline (never a speed
    check: the deadline only bounds a hang)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what or predicate}")


@pytest.fixture
def sched(project: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Sched]:
    monkeypatch.setenv("ORACULUM_SESSION", SESSION)
    found = Sched(project)
    yield found
    stop_scheduler_runner()
    for pid in found.extra_pids:
        kill_if_ours(pid, None)
