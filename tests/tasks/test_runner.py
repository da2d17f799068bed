"""BackgroundTasks: returns at once, posts exactly one notice per task whatever happens to
it, at most `limit` running per owner, cancelled with its owner."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.project import project_id
from oraculum.tasks import BackgroundTasks, Notice, NoticeStore, Owner, TaskResult

JOIN_S = 10.0


def owner_of(project: Path, session: str = "a") -> Owner:
    return Owner(project_id(project), session)


def notices_of(project: Path) -> list[Notice]:
    return list(NoticeStore().notices(project_id(project)))


def finished(tasks: BackgroundTasks, owner: Owner) -> None:
    """Block until ``owner`` has nothing running (each task posts before it leaves the set)."""
    for thread in [t for t in threading.enumerate() if t.name.startswith("oraculum-fetch-")]:
        thread.join(JOIN_S)
    assert tasks.running(owner) == []


def test_start_returns_while_the_work_runs_and_one_notice_follows(project: Path) -> None:
    tasks = BackgroundTasks("fetch", limit=2)
    owner = owner_of(project)
    release = threading.Event()

    def work(cancel: threading.Event) -> TaskResult:
        release.wait(JOIN_S)
        return TaskResult(True, "fetched example.org", "12 bytes", {"bytes": 12})

    task_id = tasks.start(owner, "fetch example.org", work)
    assert tasks.running(owner) == [task_id]
    assert notices_of(project) == []  # nothing is told before the work ends
    release.set()
    finished(tasks, owner)
    [notice] = notices_of(project)
    assert notice.kind == "fetch" and notice.source_id == task_id
    assert notice.title == "fetched example.org" and notice.text == "12 bytes"
    assert notice.data == {"bytes": 12, "taskId": task_id, "ok": True, "errorCode": None}


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (OracleError("lock_timeout", "busy lock"), "lock_timeout"),
        (RuntimeError("boom"), "internal_error"),
    ],
)
def test_a_raising_task_posts_one_failure(project: Path, error: Exception, code: str) -> None:
    tasks = BackgroundTasks("fetch", limit=1)
    owner = owner_of(project)

    def work(cancel: threading.Event) -> TaskResult:
        raise error

    tasks.start(owner, "fetch it", work)
    finished(tasks, owner)
    [notice] = notices_of(project)
    assert notice.data["ok"] is False and notice.data["errorCode"] == code
    assert notice.title == "fetch it" and code in notice.text


def test_the_limit_is_per_owner_and_frees_up(project: Path) -> None:
    tasks = BackgroundTasks("fetch", limit=1)
    owner, other = owner_of(project, "a"), owner_of(project, "b")
    release = threading.Event()

    def work(cancel: threading.Event) -> TaskResult:
        release.wait(JOIN_S)
        return TaskResult(True, "ok", "")

    tasks.start(owner, "first", work)
    with pytest.raises(OracleError) as caught:
        tasks.start(owner, "second", work)
    assert caught.value.code == ErrorCode.BACKGROUND_LIMIT and caught.value.retryable
    assert caught.value.details["limit"] == 1
    tasks.start(other, "another session's", work)  # its own budget
    release.set()
    finished(tasks, owner)
    tasks.start(owner, "after the first ended", lambda cancel: TaskResult(True, "ok", ""))
    finished(tasks, owner)
    assert len(notices_of(project)) == 3


def test_cancel_owner_stops_its_tasks_with_one_cancelled_notice_each(project: Path) -> None:
    tasks = BackgroundTasks("fetch", limit=3)
    owner, bystander = owner_of(project, "a"), owner_of(project, "b")
    release = threading.Event()

    def until_cancelled(cancel: threading.Event) -> TaskResult:
        cancel.wait(JOIN_S)
        raise OracleError("lock_timeout", "interrupted by the cancel")

    def bystanding(cancel: threading.Event) -> TaskResult:
        release.wait(JOIN_S)
        return TaskResult(True, "still ran", "")

    ids = [tasks.start(owner, f"t{n}", until_cancelled) for n in range(2)]
    kept = tasks.start(bystander, "b's", bystanding)
    assert sorted(tasks.cancel_owner(owner, join_s=JOIN_S)) == sorted(ids)
    assert tasks.running(owner) == [] and tasks.running(bystander) == [kept]
    cancelled = notices_of(project)
    assert sorted(n.source_id for n in cancelled) == sorted(ids)
    assert {n.data["errorCode"] for n in cancelled} == {"task_cancelled"}
    release.set()
    finished(tasks, bystander)
    assert len(notices_of(project)) == 3
