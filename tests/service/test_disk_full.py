"""Disk full and other OS errors (issue 13 §4), on a real tmpfs mounted as the jobs directory
(root only), with real submits, real workers (test provider) and real killed processes.

Filling the tmpfs: a filler file is written until ENOSPC, then truncated to give back exactly
the number of pages wanted (tmpfs counts whole pages, as `statvfs` reports them). Admission is
tried with 0, 1, 2, … free pages, so each of its steps (archive, prompt.md, job.json, hand-off)
runs out of space in turn without any size being guessed.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from homes import finished
from oraculum.capture.files import write_response
from oraculum.cli import main
from oraculum.core.errors import ExitCode, OracleError
from oraculum.core.fsio import atomic_write_bytes, os_error, write_private_file
from oraculum.core.paths import state_dir
from oraculum.jobs import leases
from oraculum.jobs.model import Job, Phase, PromptSendState, Status
from oraculum.jobs.process import terminate
from oraculum.jobs.store import JobPaths, JobStore
from oraculum.service.caller import Caller
from oraculum.service.read import read
from oraculum.service.status import status
from oraculum.service.submit import submit

pytestmark = pytest.mark.slow

PAGE = 4096
SESSION = "disk-full"
THREAD = "disk-full-thread"  # a conversation, so admission takes a conversation lease too
MAX_FREE_PAGES = 64  # far more than a tiny project's archive, prompt and job.json need
HANDOFF = "before durable worker handoff"


class Disk:
    """The tmpfs under test and its filler file."""

    def __init__(self, mount: Path) -> None:
        self.mount = mount
        self.filler = mount / "filler"

    def free_pages(self) -> int:
        return os.statvfs(self.mount).f_bavail

    def fill(self, *, leave_pages: int) -> None:
        """Fill the filesystem completely, then give back exactly ``leave_pages`` pages."""
        fd = os.open(self.filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            for chunk in (1 << 20, PAGE, 1):
                try:
                    while True:
                        os.write(fd, bytes(chunk))
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC
        finally:
            os.close(fd)
        pages = -(-self.filler.stat().st_size // PAGE)
        os.truncate(self.filler, (pages - leave_pages) * PAGE)
        assert self.free_pages() == leave_pages

    def empty(self) -> None:
        self.filler.unlink(missing_ok=True)


@pytest.fixture
def disk(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Disk]:
    """A 20 MB tmpfs as ORACULUM_JOBS_DIR (the state dir stays on the ordinary disk)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mount = tmp_path / "jobs-tmpfs"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=20m,mode=0700", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    monkeypatch.setenv("ORACULUM_JOBS_DIR", str(mount / "jobs"))
    try:
        yield Disk(mount)
    finally:
        _stop_workers(JobStore())
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _stop_workers(store: JobStore) -> None:
    for job_id in store.list_ids():
        try:
            job = store.load(job_id)
        except OracleError:
            continue
        if job.worker is not None:
            terminate(job.worker, grace_s=2.0)


def _processes_on(path: Path) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        if str(path) in " ".join(proc.info.get("cmdline") or ()):
            found.append(proc)
    return found


def assert_nothing_left(disk: Disk, pages: int) -> None:
    """A refused submit left no job, lease, marker, staged archive, worker or used page."""
    store = JobStore()
    assert store.list_ids() == []
    assert list(store.staging_root.iterdir()) == []
    assert list(leases.list_leases(leases.RUNTIME)) == []
    assert list(leases.list_leases(leases.CONVERSATION)) == []
    markers = [p for p in (state_dir() / "index").rglob("*") if p.is_file()]
    assert markers == []
    assert _processes_on(disk.mount) == []
    assert disk.free_pages() == pages  # every page the attempt wrote is back


def scan_submits(
    disk: Disk, attempt: Callable[[], dict[str, Any] | None], wanted: Callable[[dict], bool]
) -> list[dict[str, Any]]:
    """Run ``attempt`` with 0, 1, 2, … free pages until it fails in the ``wanted`` way;
    returns every failure's error shape (each checked to have left nothing behind)."""
    failures: list[dict[str, Any]] = []
    for pages in range(MAX_FREE_PAGES):
        disk.fill(leave_pages=pages)
        error = attempt()
        assert error is not None, f"submitted with {pages} free pages before: {failures}"
        assert_nothing_left(disk, pages)
        failures.append(error)
        if wanted(error):
            return failures
    raise AssertionError(f"never failed as wanted: {failures}")


def assert_disk_full(error: dict[str, Any], disk: Disk) -> None:
    assert error["code"] == "disk_full", error
    assert error["details"]["errno"] == "ENOSPC"
    assert error["details"]["path"].startswith(str(disk.mount))
    assert error["details"]["path"] in error["message"]
    assert error["retryable"] is True


def submit_service() -> dict[str, Any] | None:
    try:
        submit(
            "Why is the sky blue?",
            ["src"],
            caller=Caller(session=SESSION),
            provider="test",
            conversation=THREAD,
            selection_extras={"outcome": "hang"},
        )
    except OracleError as error:
        return error.to_dict()
    return None


def test_enospc_at_handoff_leaves_no_half_admitted_job(disk: Disk) -> None:
    failures = scan_submits(disk, submit_service, lambda e: HANDOFF in e["message"])
    for error in failures:
        assert_disk_full(error, disk)
    handoff = failures[-1]
    assert handoff["details"]["path"].endswith("/job.json")  # the worker identity's write
    # Every step ran out of space once on the way: the archive, prompt.md, then job.json.
    paths = [e["details"]["path"] for e in failures]
    assert any("/.staging/" in p for p in paths)
    assert any(p.endswith("/prompt.md") for p in paths)

    disk.empty()  # with room again the same submit goes through, from a clean slate
    job = submit(
        "Why?", ["src"], caller=Caller(session=SESSION), provider="test", conversation=THREAD
    ).job
    assert finished(job["id"]).status == Status.COMPLETE


def test_enospc_writing_prompt_is_disk_full(disk: Disk, capsys: pytest.CaptureFixture[str]) -> None:
    def cli_submit() -> dict[str, Any] | None:
        code = main(
            ["--json", "submit", "-p", "Why?", "--provider", "test", "--session", SESSION, "src"]
        )
        captured = capsys.readouterr()
        assert "Traceback" not in captured.err
        document = json.loads(captured.out)
        if code == 0:
            return None
        assert code == ExitCode.NOT_READY
        return document["error"]

    failures = scan_submits(
        disk, cli_submit, lambda e: e["details"].get("path", "").endswith("/prompt.md")
    )
    prompt = failures[-1]
    assert_disk_full(prompt, disk)
    assert prompt["message"].startswith("Disk full: cannot write ")
    assert "oraculum clean --expired" in prompt["suggestedNextStep"]


def _awaiting_answer_then_fill(disk: Disk, leave_pages: int) -> tuple[str, JobPaths]:
    """A real worker waiting for its answer (prompt accepted) when the disk fills up.

    The test provider answers with the prompt: 200 KiB, far more than ``leave_pages``."""
    store = JobStore()
    prompt = "Repeat this. " + "x" * (200 * 1024)
    job_id = submit(
        prompt,
        ["src"],
        caller=Caller(session=SESSION),
        provider="test",
        selection_extras={"delayMs": 2500},
    ).job["id"]
    deadline = time.monotonic() + 30
    while store.load(job_id).phase != Phase.AWAITING_RESPONSE:
        assert time.monotonic() < deadline, store.load(job_id).phase
        time.sleep(0.05)
    paths = store.paths(job_id)
    assert paths.space_reserve.exists()  # set aside by the worker at start
    disk.fill(leave_pages=leave_pages)
    return job_id, paths


def assert_recoverable(ended: Job, paths: JobPaths) -> None:
    assert ended.status == Status.FAILED
    assert ended.error_code == "disk_full"
    assert ended.prompt_send_state == PromptSendState.ACCEPTED
    assert ended.recollection_needed is True  # recollect it, do not resend
    assert not paths.response.exists()  # nothing half-written passes for the answer
    assert [p.name for p in paths.dir.iterdir() if p.name.endswith(".tmp")] == []
    assert not paths.space_reserve.exists()  # given back when the worker ended


def test_enospc_saving_answer_keeps_it_recoverable(disk: Disk) -> None:
    # Room for job.json rewrites (a few pages), none for the answer.
    job_id, paths = _awaiting_answer_then_fill(disk, leave_pages=16)
    ended = finished(job_id)
    assert_recoverable(ended, paths)
    assert f"cannot write {paths.response} " in (ended.error or "")

    disk.empty()
    shown = read(job_id, caller=Caller(session=SESSION))
    assert shown.job["errorCode"] == "disk_full"
    assert shown.gaps["recollectionNeeded"] is True


def test_enospc_everywhere_still_records_how_the_job_ended(disk: Disk) -> None:
    # Not a page left: the next job.json write fails too, and the worker records the failure
    # in the space it set aside, so the job never waits for reconcile to be explained.
    job_id, paths = _awaiting_answer_then_fill(disk, leave_pages=0)
    ended = finished(job_id)
    assert_recoverable(ended, paths)
    assert f"cannot write {paths.job_file} " in (ended.error or "")


def test_full_disk_job_of_a_killed_worker_is_explained_from_its_reserve(disk: Disk) -> None:
    store = JobStore()
    job_id = submit(
        "Hang.",
        ["src"],
        caller=Caller(session=SESSION),
        provider="test",
        selection_extras={"outcome": "hang"},
    ).job["id"]
    deadline = time.monotonic() + 30
    while (job := store.load(job_id)).phase != Phase.AWAITING_RESPONSE:
        assert time.monotonic() < deadline, job.phase
        time.sleep(0.05)
    disk.fill(leave_pages=0)
    assert job.worker is not None
    os.kill(job.worker.pid, signal.SIGKILL)  # no ending of its own
    # Not a page free, but the reserve its worker never gave back is room for the ending.
    deadline = time.monotonic() + 30
    while (shown := status(job_id, caller=Caller(session=SESSION)).to_json()["job"])[
        "status"
    ] != "failed":
        assert time.monotonic() < deadline, shown
        time.sleep(0.2)
    assert shown["errorCode"] == "worker_lost"
    assert not store.paths(job_id).space_reserve.exists()
    assert f"PID {job.worker.pid} is no longer running" in shown["error"]


def test_enospc_rewriting_response_keeps_the_earlier_one(disk: Disk) -> None:
    target = disk.mount / "response.md"
    write_response(target, "The first answer.\n")
    disk.fill(leave_pages=1)  # room for the kept copy of the first answer, not the new one
    with pytest.raises(OracleError) as info:
        write_response(target, "A much longer second answer. " * 2000)
    assert info.value.code == "disk_full"
    assert info.value.details["path"] == str(target)
    assert target.read_text() == "The first answer.\n"
    assert not [p for p in disk.mount.iterdir() if p.name.endswith(".tmp")]


HOLDER = """
import time
from oraculum.jobs.store import JobPaths, JobStore

with JobStore().staging_area() as area:
    (area / ".context-x.tar.zst.0123abcd.tmp").write_bytes(bytes(1 << 20))
    print(area, flush=True)
    time.sleep(120)
"""


def _hold_staging() -> tuple[subprocess.Popen[str], Path]:
    """A real submit-like process holding its staging area with a half-written archive."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER], stdout=subprocess.PIPE, text=True, env=dict(os.environ)
    )
    assert proc.stdout is not None
    area = Path(proc.stdout.readline().strip())
    assert area.is_dir(), area
    return proc, area


def _kill(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)


def test_stale_staging_files_are_swept_on_submit_and_clean(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = JobStore()
    killed, killed_area = _hold_staging()
    live, live_area = _hold_staging()
    try:
        _kill(killed)  # SIGKILL: its own clean-up never runs
        assert killed_area.is_dir()
        # Left by a version that recorded no owner: an old one goes, a young one may be live.
        old = store.staging_root / ".context-old.tar.zst.deadbeef.tmp"
        old.write_bytes(b"old")
        two_hours_ago = time.time() - 7200
        os.utime(old, (two_hours_ago, two_hours_ago))
        young = store.staging_root / "context-young.tar.zst"
        young.write_bytes(b"young")

        job = submit("Why?", ["src"], caller=Caller(session=SESSION), provider="test").job
        left = sorted(p.name for p in store.staging_root.iterdir())
        assert left == sorted([live_area.name, young.name])

        _kill(live)
        assert live_area.is_dir()
        assert main(["--json", "clean", "--expired"]) == 0
        capsys.readouterr()
        assert [p.name for p in store.staging_root.iterdir()] == [young.name]
        assert finished(job["id"]).status == Status.COMPLETE
    finally:
        for proc in (killed, live):
            if proc.poll() is None:
                _kill(proc)


def test_oserror_maps_to_codes(tmp_path: Path) -> None:
    full = os_error(OSError(errno.ENOSPC, "No space left on device"), tmp_path / "a.json")
    assert full.code == "disk_full" and full.retryable
    assert full.details == {"path": str(tmp_path / "a.json"), "errno": "ENOSPC"}
    assert str(tmp_path / "a.json") in full.message
    assert full.exit_code == ExitCode.NOT_READY
    quota = os_error(OSError(errno.EDQUOT, "Disk quota exceeded", "/q/file"))
    assert quota.code == "disk_full" and quota.details == {"path": "/q/file", "errno": "EDQUOT"}
    other = os_error(OSError(errno.EIO, "Input/output error", "/dev/x"), action="read")
    assert other.code == "io_error" and not other.retryable
    assert other.details == {"path": "/dev/x", "errno": "EIO"}
    assert other.message == "Cannot read /dev/x: Input/output error (EIO)."
    assert other.exit_code == ExitCode.FAILED

    # Real faults through the writers: a parent that is a file, not a directory.
    blocker = tmp_path / "file"
    blocker.write_text("")
    for write in (atomic_write_bytes, write_private_file):
        with pytest.raises(OracleError) as info:
            write(blocker / "child.json", b"{}")
        assert info.value.code == "io_error"
        assert info.value.details == {"path": str(blocker / "child.json"), "errno": "ENOTDIR"}
    with pytest.raises(FileExistsError):  # a collision stays the caller's to handle
        write_private_file(blocker, b"")


def test_a_submit_on_a_nearly_full_disk_ends_disk_full_never_worker_lost(disk: Disk) -> None:
    """Issue 41 §3: with 0, 1, 2, … free pages a submit is refused `disk_full` or its job ends
    complete or `disk_full`; never `worker_lost`, and no worker leaves a traceback."""
    store = JobStore()
    outcomes: dict[int, str] = {}
    for pages in range(MAX_FREE_PAGES):
        disk.fill(leave_pages=pages)
        try:
            job_id = submit("Why?", ["src"], caller=Caller(session=SESSION), provider="test").job[
                "id"
            ]
        except OracleError as error:
            assert error.code == "disk_full", (pages, error.to_dict())
            outcomes[pages] = "refused"
            continue
        ended = finished(job_id, timeout=30)
        outcomes[pages] = ended.error_code or ended.status.value
        assert outcomes[pages] in ("complete", "disk_full"), (pages, ended.error)
        log = store.paths(job_id).worker_log
        assert "Traceback" not in (log.read_text() if log.exists() else ""), pages
        assert not store.paths(job_id).space_reserve.exists()
        disk.empty()
        if ended.status == Status.COMPLETE:
            break  # from here on there is room for everything
    assert "refused" in outcomes.values() and "complete" in outcomes.values(), outcomes
