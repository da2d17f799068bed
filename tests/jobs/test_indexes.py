"""The marker indexes' cheap reads: queue sizes read once per marker, and the last issued id."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from oraculum.core.paths import state_dir
from oraculum.jobs import indexes
from oraculum.jobs.ids import new_job_id

A, B, C = (new_job_id() for _ in range(3))


def test_total_size_follows_markers_added_and_removed(tmp_path: Path) -> None:
    indexes.mark(indexes.QUEUE, A, size=100, root=tmp_path)
    indexes.mark(indexes.QUEUE, B, size=20, root=tmp_path)
    assert indexes.total_size(indexes.QUEUE, root=tmp_path) == 120
    indexes.unmark(indexes.QUEUE, A, root=tmp_path)
    assert indexes.total_size(indexes.QUEUE, root=tmp_path) == 20
    indexes.mark(indexes.QUEUE, C, size=7, root=tmp_path)
    assert indexes.total_size(indexes.QUEUE, root=tmp_path) == 27
    indexes.unmark(indexes.QUEUE, B, root=tmp_path)
    indexes.mark(indexes.QUEUE, B, size=20, root=tmp_path)  # made again for the same job
    assert indexes.total_size(indexes.QUEUE, root=tmp_path) == 27


def test_total_size_ignores_foreign_names_and_garbage(tmp_path: Path) -> None:
    indexes.mark(indexes.STRANDED, A, size=5, root=tmp_path)
    directory = tmp_path / "index" / indexes.STRANDED
    (directory / "not-a-job-id").write_text("999")
    (directory / B).write_text("garbage")
    assert indexes.total_size(indexes.STRANDED, root=tmp_path) == 5
    assert indexes.total_size("never-made", root=tmp_path) == 0


def test_mark_makes_its_directory_private_when_missing(tmp_path: Path) -> None:
    indexes.mark(indexes.OPEN, A, root=tmp_path)
    directory = tmp_path / "index" / indexes.OPEN
    assert (directory / A).is_file()
    assert os.stat(directory).st_mode & 0o777 == 0o700
    assert os.stat(directory / A).st_mode & 0o777 == 0o600


def test_last_id_round_trip_and_refuses_garbage(tmp_path: Path) -> None:
    assert indexes.last_id(root=tmp_path) is None
    indexes.record_last_id(A, root=tmp_path)
    assert indexes.last_id(root=tmp_path) == A
    indexes.record_last_id(B, root=tmp_path)
    assert indexes.last_id(root=tmp_path) == B
    (tmp_path / "index" / "last-id").write_text("../../etc/passwd")
    assert indexes.last_id(root=tmp_path) is None


def test_forgetting_the_last_issued_job_drops_the_record(oraculum_home: Path) -> None:
    indexes.record_last_id(A)
    indexes.forget(B, "project")  # another job: the record stays
    assert indexes.last_id() == A
    indexes.forget(A, "project")
    assert indexes.last_id() is None


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_one_blank_is_every_marker_of_a_job_with_its_size_and_a_fresh_age(
    tmp_path: Path,
) -> None:
    with indexes.Blank(root=tmp_path) as blank:
        time.sleep(0.05)  # made well before the lock is taken
        before = time.time()
        for name in (indexes.OPEN, indexes.project("p"), indexes.QUEUE):
            indexes.mark(name, A, size=4096, root=tmp_path, blank=blank)
    markers = [tmp_path / "index" / name / A for name in (indexes.OPEN, "project/p", "queue")]
    assert len({os.stat(marker).st_ino for marker in markers}) == 1  # one file, three names
    assert os.stat(markers[0]).st_nlink == 3
    assert indexes.total_size(indexes.QUEUE, root=tmp_path) == 4096
    assert os.stat(markers[2]).st_mode & 0o777 == 0o600
    # Its age counts from the marking, not from the blank's making (see marked_within).
    assert markers[2].stat().st_mtime >= before - 0.01
    assert indexes.marked_within(indexes.QUEUE, A, 1.0, root=tmp_path)
    indexes.unmark(indexes.QUEUE, A, root=tmp_path)  # names go one by one
    assert indexes.total_size(indexes.QUEUE, root=tmp_path) == 0
    assert indexes.members(indexes.OPEN, root=tmp_path) == [A]


@pytest.mark.usefixtures("oraculum_home")
def test_registering_a_job_makes_one_file_for_its_markers() -> None:
    with indexes.Blank() as blank:
        indexes.register(A, "p", queued_bytes=77, blank=blank)
    with indexes.Blank() as blank:
        indexes.register(B, "p", blank=blank)  # admitted: no queue marker, no size
    assert indexes.members(indexes.QUEUE) == [A]
    assert indexes.members(indexes.OPEN) == indexes.members(indexes.project("p")) == [A, B]
    assert indexes.total_size(indexes.QUEUE) == 77
    assert os.stat(state_dir() / "index" / indexes.OPEN / A).st_nlink == 3
    assert os.stat(state_dir() / "index" / indexes.OPEN / B).st_nlink == 2


def test_a_name_already_marked_is_marked_by_name_and_the_blank_serves_the_rest(
    tmp_path: Path,
) -> None:
    indexes.mark(indexes.QUEUE, A, size=10, root=tmp_path)
    with indexes.Blank(root=tmp_path) as blank:
        indexes.mark(indexes.QUEUE, A, size=10, root=tmp_path, blank=blank)
        indexes.mark(indexes.OPEN, A, size=10, root=tmp_path, blank=blank)
    queue, opened = (tmp_path / "index" / name / A for name in (indexes.QUEUE, indexes.OPEN))
    assert os.stat(queue).st_ino != os.stat(opened).st_ino
    assert indexes.members(indexes.QUEUE, root=tmp_path) == [A]
    assert indexes.members(indexes.OPEN, root=tmp_path) == [A]
    assert indexes.total_size(indexes.QUEUE, root=tmp_path) == 10


def test_an_unused_blank_is_freed(tmp_path: Path) -> None:
    open_before = _open_fds()
    with indexes.Blank(root=tmp_path):
        pass
    assert _open_fds() == open_before
    assert [p for p in (tmp_path / "index").rglob("*") if p.is_file()] == []


def test_without_nameless_files_markers_are_made_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(indexes, "unnamed_file", lambda directory: None)  # as without O_TMPFILE
    with indexes.Blank(root=tmp_path) as blank:
        indexes.mark(indexes.OPEN, A, size=3, root=tmp_path, blank=blank)
        indexes.mark(indexes.QUEUE, A, size=3, root=tmp_path, blank=blank)
    queue, opened = (tmp_path / "index" / name / A for name in (indexes.QUEUE, indexes.OPEN))
    assert os.stat(queue).st_ino != os.stat(opened).st_ino
    assert indexes.total_size(indexes.QUEUE, root=tmp_path) == 3


@pytest.mark.usefixtures("nameless_files_cannot_be_named")
def test_a_blank_that_cannot_be_named_leaves_marking_to_the_name(tmp_path: Path) -> None:
    open_before = _open_fds()
    with indexes.Blank(root=tmp_path) as blank:
        indexes.mark(indexes.QUEUE, A, size=8, root=tmp_path, blank=blank)
        assert _open_fds() == open_before  # given up at the first failure
        indexes.mark(indexes.OPEN, A, root=tmp_path, blank=blank)
    assert indexes.members(indexes.QUEUE, root=tmp_path) == [A]
    assert indexes.members(indexes.OPEN, root=tmp_path) == [A]
    assert indexes.total_size(indexes.QUEUE, root=tmp_path) == 8
