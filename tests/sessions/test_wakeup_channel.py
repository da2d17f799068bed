"""`oraculum wakeups serve` (issue 19): a host that starts turns claims wake-ups only when it
can deliver them, commits what it showed, abandons what it could not; exactly once across
sessions through the job's claims."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from oraculum.core.project import project_id
from oraculum.jobs.store import JobStore
from oraculum.sessions.liveness import is_live
from oraculum.sessions.poller import Poller
from oraculum.tasks import Owner, post_notice

from .jobs_support import finished_job

from oraculum.cli.wakeups_cmd import WakeupChannel, serve_channel  # isort: skip

ORACULUM = Path(sys.executable).with_name("oraculum")


@pytest.fixture
def store(project: Path) -> JobStore:
    return JobStore()


def channel(project: Path, session: str) -> WakeupChannel:
    def never(_wakeup: object) -> None:
        raise AssertionError("the channel never sends through the sink")

    return WakeupChannel(Poller(project_id(project), session, never, surface="mcp"))


def ids(answer: dict) -> list[str]:
    return [w["jobId"] for w in answer["wakeups"]]


def test_claim_commit_counts_once(project: Path, store: JobStore) -> None:
    first = finished_job(store, project, "a")
    second = finished_job(store, project, "a")
    host = channel(project, "a")
    claimed = host.handle('{"op": "claim"}')
    assert claimed["type"] == "claimed" and ids(claimed) == [first.id, second.id]
    assert f"Oracle job {first.id} is complete." in claimed["wakeups"][0]["text"]
    assert f'oracle_read {{"jobId": "{first.id}"}}' in claimed["wakeups"][0]["text"]
    assert store.load(first.id).notify_claimed_by is not None
    assert host.handle('{"op": "commit"}') == {
        "type": "committed",
        "ids": [first.id, second.id],
    }
    for job_id in (first.id, second.id):
        job = store.load(job_id)
        assert job.wakeup_attempt_count == 1 and job.notify_claimed_by is None
    assert ids(host.claim()) == []  # the next reminder waits for its retry delay


def test_abandon_leaves_it_due(project: Path, store: JobStore) -> None:
    job = finished_job(store, project, "a")
    host = channel(project, "a")
    assert ids(host.claim()) == [job.id]
    assert host.handle('{"op": "abandon"}') == {"type": "abandoned", "ids": [job.id]}
    after = store.load(job.id)
    assert after.wakeup_attempt_count == 0 and after.notify_claimed_by is None
    assert ids(host.claim()) == [job.id]


def test_a_held_claim_is_not_claimed_twice(project: Path, store: JobStore) -> None:
    """Two hosts of the session: the second sees nothing while the first holds the claim, and
    the first must settle its batch before it claims again."""
    job = finished_job(store, project, "a")
    first, second = channel(project, "a"), channel(project, "a")
    assert ids(first.claim()) == [job.id]
    assert ids(second.claim()) == []
    with pytest.raises(Exception, match="still held"):
        first.handle('{"op": "claim"}')
    first.commit()
    assert store.load(job.id).wakeup_attempt_count == 1


def test_bad_lines_are_errors_and_end_of_input_abandons(project: Path, store: JobStore) -> None:
    job = finished_job(store, project, "a")
    out = io.StringIO()
    serve_channel(channel(project, "a"), io.StringIO('nope\n{"op": "claim"}\n'), out)
    error, claimed = (json.loads(line) for line in out.getvalue().splitlines())
    assert error["type"] == "error" and error["error"]["code"] == "invalid_argument"
    assert ids(claimed) == [job.id]
    after = store.load(job.id)  # the input ended with the batch held: released, uncounted
    assert after.notify_claimed_by is None and after.wakeup_attempt_count == 0


def test_a_deeply_nested_line_is_an_error_not_a_crash(project: Path, store: JobStore) -> None:
    out = io.StringIO()
    deep = "[" * 200_000 + "]" * 200_000
    serve_channel(channel(project, "a"), io.StringIO(deep + '\n{"op": "claim"}\n'), out)
    error, claimed = (json.loads(line) for line in out.getvalue().splitlines())
    assert error["type"] == "error" and error["error"]["code"] == "invalid_argument"
    assert claimed["type"] != "error"


def test_a_notice_goes_out_once_like_a_job(project: Path, store: JobStore) -> None:
    """A background task's notice is handed out by the same claim, commit and abandon."""
    notice = post_notice(
        Owner(project_id(project), "a"),
        kind="fetch",
        source_id="t-1",
        title="fetched example.org",
        text="12 bytes",
        data={"ok": True},
    )
    host = channel(project, "a")
    (claimed,) = host.claim()["wakeups"]
    assert claimed["noticeId"] == notice.id and "fetched example.org" in claimed["text"]
    host.abandon()
    (again,) = host.claim()["wakeups"]
    assert again["noticeId"] == notice.id
    assert host.commit() == {"type": "committed", "ids": [notice.id]}
    assert host.claim()["wakeups"] == []


@pytest.mark.slow
def test_serve_process_is_a_live_host_of_its_session(project: Path, store: JobStore) -> None:
    job = finished_job(store, project, "origin")
    proc = subprocess.Popen(
        [str(ORACULUM), "wakeups", "serve", "--session", "origin"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        ready = json.loads(proc.stdout.readline())
        assert ready["type"] == "ready" and ready["sessionId"] == "origin"
        assert is_live(project_id(project), "origin")
        # Another session of the project does not adopt the job while its own host lives.
        assert ids(channel(project, "other").claim()) == []
        proc.stdin.write('{"op": "claim"}\n')
        proc.stdin.flush()
        assert ids(json.loads(proc.stdout.readline())) == [job.id]
        proc.stdin.write('{"op": "commit"}\n')
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["ids"] == [job.id]
    finally:
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    assert not is_live(project_id(project), "origin")
    assert store.load(job.id).wakeup_attempt_count == 1


def test_serve_without_a_session_is_refused(project: Path) -> None:
    done = subprocess.run(
        [str(ORACULUM), "--json", "wakeups", "serve"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert json.loads(done.stdout)["error"]["code"] == "persisted_session_required"
