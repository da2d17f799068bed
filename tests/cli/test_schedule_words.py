"""Issue 38 §11: `schedule list` and `schedule show` say in words how occurrences ended (never
raw outcome values), through the real `oraculum` and its scheduler runner."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from homes import run_cli
from oraculum.scheduler.service import outcome_counts

ORACULUM = str(Path(sys.executable).with_name("oraculum"))


def test_outcome_counts_are_words() -> None:
    assert outcome_counts({"missed": 1, "exit": 2}) == "2 ran, 1 missed"
    assert outcome_counts({"start_error": 1, "heartbeat": 1}) == "1 fired, 1 could not start"
    assert outcome_counts({"new_kind": 1}) == "1 new kind"
    assert outcome_counts({}) == "-"


@pytest.mark.slow
def test_schedule_list_says_how_occurrences_ended(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORACULUM_SESSION", "schedule-words")
    code, reminder = run_cli("schedule", "submit", "--prompt", "Look.", "--in", "1s", cwd=project)
    assert code == 0, reminder
    payload = ["--prompt", "Exit.", "--in", "1s", "--", "/bin/sh", "-c", "exit 3"]
    code, ran = run_cli("schedule", "submit", *payload, cwd=project)
    assert code == 0, ran
    deadline = time.monotonic() + 90  # bounds a hang; the runner fires both in seconds
    while time.monotonic() < deadline:
        code, listed = run_cli("schedule", "list", cwd=project)
        states = [s["state"] for s in listed["schedules"]]
        if states == ["finished", "finished"] and all(
            s["occurrences"] for s in listed["schedules"]
        ):
            break
        time.sleep(0.5)
    assert [s["occurrences"] for s in listed["schedules"]] == [{"heartbeat": 1}, {"exit": 1}]

    words = subprocess.run(
        [ORACULUM, "schedule", "list"], cwd=project, capture_output=True, text=True, timeout=60
    )
    assert words.returncode == 0, words.stderr
    rows = {line.split()[0]: line for line in words.stdout.splitlines()[1:]}
    assert "1 fired" in rows[reminder["schedule"]["id"]]
    assert "1 ran" in rows[ran["schedule"]["id"]]
    assert "heartbeat" not in words.stdout and " exit " not in words.stdout

    shown = subprocess.run(
        [ORACULUM, "schedule", "show", ran["schedule"]["id"]],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ,
    )
    assert shown.returncode == 0, shown.stderr
    assert "exited with code 3" in shown.stdout
