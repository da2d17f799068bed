"""Issue 38 §4: with `notify.desktop` on, the worker itself tells the desktop when its job ends
(a person who submitted and walked away needs no live `wait`). A stand-in `notify-send` on PATH
records what it was given; the worker is a real process."""

from __future__ import annotations

import contextlib
import os
import stat
import time
from pathlib import Path

import psutil
import pytest

from homes import finished, write_fast_config
from oraculum.jobs.model import Job, Phase, Status
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.submit import submit
from oraculum.sessions.desktop import desktop_note


def _stand_in_notify_send(bin_dir: Path, record: Path) -> None:
    bin_dir.mkdir()
    script = bin_dir / "notify-send"
    script.write_text(
        "#!/bin/sh\n"
        f"for part in \"$@\"; do printf '%s\\n' \"$part\" >> '{record}'; done\n"
        f"echo --- >> '{record}'\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def notified(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    record = project.parent / "notifications.txt"
    bin_dir = project.parent / "bin"
    _stand_in_notify_send(bin_dir, record)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return record


def _worker_has_told_the_desktop(job_id: str, timeout: float = 30.0) -> None:
    """The worker tells the desktop after its clean-up (which `finished` waits for), so wait
    for its log to say the notification was handed over."""
    log = JobStore().paths(job_id).worker_log
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and "desktop notification:" in log.read_text(errors="replace"):
            return
        time.sleep(0.1)
    raise AssertionError(f"job {job_id}: the worker never reported its desktop notification")


def test_a_finished_job_tells_the_desktop_once(project: Path, notified: Path) -> None:
    write_fast_config({"notify": {"desktop": True}})
    job_id = submit("q", ["src"], caller=Caller(session="walked-away"), provider="test").job["id"]
    assert finished(job_id).status == Status.COMPLETE
    _worker_has_told_the_desktop(job_id)
    shown = notified.read_text().split("---\n")
    assert shown[1:] == [""], shown  # exactly one notification
    assert f"oraculum: job {job_id} complete" in shown[0]
    assert f"oraculum read {job_id}" in shown[0]


def test_a_failed_job_says_why_and_where_to_look(project: Path, notified: Path) -> None:
    write_fast_config({"notify": {"desktop": True}})
    job_id = submit(
        "q",
        ["src"],
        caller=Caller(session="walked-away"),
        provider="test",
        selection_extras={"outcome": "fail"},
    ).job["id"]
    assert finished(job_id).status == Status.FAILED
    _worker_has_told_the_desktop(job_id)
    text = notified.read_text()
    assert f"oraculum: job {job_id} failed" in text and f"oraculum status {job_id}" in text


def test_off_by_default(project: Path, notified: Path) -> None:
    write_fast_config()
    job_id = submit("q", ["src"], caller=Caller(session="walked-away"), provider="test").job["id"]
    worker = finished(job_id).worker
    assert worker is not None
    with contextlib.suppress(psutil.NoSuchProcess):  # the worker notifies last, then exits
        psutil.Process(worker.pid).wait(timeout=30)
    assert not notified.exists()


def test_the_note_names_the_next_command() -> None:
    job = Job.model_construct(id="abc", status=Status.FAILED, phase=Phase.FAILED, error="x" * 999)
    title, body = desktop_note(job)
    assert title == "oraculum: job abc failed"
    assert body.endswith("See: oraculum status abc") and len(body) < 400
