"""The watchdog's command line: what the worker passes, and what an older worker passed."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from oraculum.jobs import indexes, transitions
from oraculum.jobs.locks import named_lock
from oraculum.jobs.model import Phase, Status, utc_now
from oraculum.jobs.store import JobStore
from oraculum.worker import watchdog
from oraculum.worker.watchdog import main

from .conftest import build_job


@pytest.mark.parametrize("interval", [["200"], []], ids=["interval given", "read from the job"])
def test_a_closed_pipe_ends_the_watch_either_way(store: JobStore, interval: list[str]) -> None:
    job = build_job()
    paths = store.create(job, "p")
    read_end, write_end = os.pipe()
    os.close(write_end)  # the worker is gone (it never had an identity: nothing to wait for)
    assert main(["watch", str(paths.dir), str(read_end), *interval]) == 0
    assert store.load(job.id).id == job.id  # judged by reconcile, not damaged


@pytest.mark.parametrize(
    "argv",
    [["watch"], ["watch", "/x", "fd"], ["watch", "/x", "3", "-5"], ["run", "/x", "3", "5"]],
)
def test_a_malformed_command_line_is_refused(argv: list[str], capsys) -> None:
    assert main(argv) == 2
    assert "usage: python -m oraculum.worker watch" in capsys.readouterr().err


@pytest.fixture
def reconcile_passes(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The job directories the watchdog ran a reconcile pass for (none is run)."""
    passes: list[Path] = []

    def reconcile_pass(job_dir: Path, **_: object) -> bool:
        passes.append(job_dir)
        return True  # the pass ran (no other process held reconcile's lock)

    monkeypatch.setattr(watchdog, "_reconcile_quietly", reconcile_pass)
    return passes


def test_a_worker_that_did_not_say_it_made_the_pass_gets_it(
    store: JobStore, reconcile_passes: list[Path]
) -> None:
    """The pass at a worker's exit is also what ends a job whose worker was killed before it
    started its own watchdog, when nothing else reconciles: a worker that died (or could not
    make the pass) said nothing, and the watchdog makes it."""
    paths = store.create(build_job(), "p")
    read_end, write_end = os.pipe()
    os.close(write_end)
    assert watchdog.main(["watch", str(paths.dir), str(read_end), "200"]) == 0
    assert reconcile_passes == [paths.dir]


def test_a_worker_that_made_the_pass_gets_no_second_one(
    store: JobStore, reconcile_passes: list[Path]
) -> None:
    paths = store.create(build_job(), "p")
    read_end, write_end = os.pipe()
    os.write(write_end, watchdog.PASS_MADE)
    os.close(write_end)
    assert watchdog.main(["watch", str(paths.dir), str(read_end), "200"]) == 0
    assert reconcile_passes == []


def _stranded(store: JobStore) -> str:
    """A job admitted long ago whose worker never recorded itself (killed at once)."""
    job = build_job()
    store.create(job, "p")
    indexes.mark(indexes.OPEN, job.id)
    return job.id


def _ended(store: JobStore, *, cleaned_up: bool) -> str:
    """The exiting worker's own job: ended, its clean-up done or still to retry."""
    job = build_job()
    store.create(job, "p")
    ended = transitions.end(
        job,
        Phase.CANCELLED,
        at=utc_now(),
        source="test",
        message="cancelled",
        error="Cancelled.",
        cleanup_pending=not cleaned_up,
    )
    store.save(ended)
    return job.id


def test_a_worker_ending_well_ends_a_job_stranded_before_its_watchdog(store: JobStore) -> None:
    """The worker's own exit pass does what the watchdog's did: the other job, whose worker
    died before it had a watchdog, ends `worker_lost`; then the watchdog is told."""
    stranded, own = _stranded(store), _ended(store, cleaned_up=True)
    read_end, write_end = os.pipe()
    assert watchdog.make_exit_pass(write_end, store, own) is True
    os.close(write_end)
    assert os.read(read_end, 64) == watchdog.PASS_MADE
    job = store.load(stranded)
    assert job.status == Status.FAILED and job.error_code == "worker_lost", job.error


def test_a_worker_that_cannot_make_the_pass_leaves_it_to_the_watchdog(store: JobStore) -> None:
    stranded, own = _stranded(store), _ended(store, cleaned_up=True)
    read_end, write_end = os.pipe()
    with named_lock("reconcile", timeout=1.0):  # another process is reconciling
        assert watchdog.make_exit_pass(write_end, store, own) is False
    os.close(write_end)
    assert os.read(read_end, 64) == b""  # nothing said: the watchdog makes the pass
    assert store.load(stranded).status == Status.SUBMITTED


def test_a_clean_up_to_retry_is_left_to_the_watchdog(store: JobStore) -> None:
    """It is retried once the worker is gone, as it always was."""
    stranded, own = _stranded(store), _ended(store, cleaned_up=False)
    read_end, write_end = os.pipe()
    assert watchdog.make_exit_pass(write_end, store, own) is False
    os.close(write_end)
    assert os.read(read_end, 64) == b""
    assert store.load(stranded).status == Status.SUBMITTED


@pytest.mark.parametrize(
    ("quiet_s", "judged"),
    [(0.0, False), (0.5, True)],
    ids=["written within two intervals", "quiet for two intervals"],
)
def test_a_live_workers_job_is_judged_once_its_file_goes_quiet(
    store: JobStore, reconcile_passes: list[Path], quiet_s: float, judged: bool
) -> None:
    paths = store.create(build_job(), "p")  # stale by the rules: no worker since long ago
    written = time.time() - quiet_s
    os.utime(paths.job_file, (written, written))
    watchdog._reconcile_if_stale(paths.dir, interval_s=0.2)
    assert reconcile_passes == ([paths.dir] if judged else [])
