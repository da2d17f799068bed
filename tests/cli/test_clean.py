"""Issue 38 §8, cleaning: a job that was read is removed at once, `--force` passes the wake-up
grace, and `clean all` says what it skipped and why, exiting non-zero when it removed nothing.
The CLI runs as a real process."""

from __future__ import annotations

from pathlib import Path

import pytest

from homes import run_cli
from oraculum.service.caller import Caller
from oraculum.service.submit import submit


@pytest.fixture(autouse=True)
def _session(oraculum_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After the home fixture, which clears any session the environment had."""
    monkeypatch.setenv("ORACULUM_SESSION", "cleaner")


def finished_and_woken(project: Path) -> str:
    """A finished job whose wake-up `submit --wait` delivered (so its grace runs), unread."""
    code, done = run_cli("submit", "-p", "q", "--provider", "test", "--wait", "src", cwd=project)
    assert code == 0 and done["job"]["status"] == "complete", done
    return str(done["job"]["id"])


def test_clean_of_a_read_job_is_not_blocked(project: Path) -> None:
    job_id = finished_and_woken(project)
    assert run_cli("read", job_id, cwd=project)[0] == 0
    code, cleaned = run_cli("clean", job_id, cwd=project)
    assert code == 0 and cleaned["removed"] == [job_id], cleaned


def test_clean_force_passes_the_wakeup_grace(project: Path) -> None:
    job_id = finished_and_woken(project)
    code, refused = run_cli("clean", job_id, cwd=project)
    assert code == 5 and refused["error"]["code"] == "clean_blocked"
    assert "--force" in refused["error"]["suggestedNextStep"]
    code, cleaned = run_cli("clean", job_id, "--force", cwd=project)
    assert code == 0 and cleaned["removed"] == [job_id], cleaned


def test_clean_all_reports_what_it_skipped_and_fails_when_it_removed_nothing(
    project: Path,
) -> None:
    finished = finished_and_woken(project)
    running = submit(
        "hold",
        ["src"],
        caller=Caller(session="cleaner"),
        provider="test",
        selection_extras={"outcome": "hang"},
    ).job["id"]
    code, refused = run_cli("clean", "all", cwd=project)
    assert code == 5 and refused["error"]["code"] == "clean_blocked", refused
    said = refused["error"]["message"]
    assert finished in said and "wake-up" in said  # why the finished one stayed
    assert running in said and "still open" in said
    assert refused["error"]["details"]["skippedOpen"] == [running]
    code, forced = run_cli("clean", "all", "--force", cwd=project)
    assert code == 0 and forced["removed"] == [finished] and forced["skippedOpen"] == [running]
    assert running in forced["message"]
    run_cli("cancel", running, cwd=project)
