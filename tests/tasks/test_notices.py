"""Durable notices and their delivery through the session pollers: stored privately, told to
the owning session exactly once (adopted like a job when the owner is gone), settled by the
delivery, retried when a delivery is abandoned."""

from __future__ import annotations

import stat
from datetime import timedelta
from pathlib import Path

import pytest

from oraculum.core.errors import OracleError
from oraculum.core.project import project_id
from oraculum.jobs.model import utc_now
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.wait import wait
from oraculum.sessions import claims
from oraculum.sessions.liveness import SessionLiveness
from oraculum.sessions.poller import Poller
from oraculum.sessions.sinks import Inbox
from oraculum.tasks import Notice, NoticeStore, Owner, post_notice

from .support import notice_for


def poller_for(project: Path, session: str) -> tuple[Poller, Inbox]:
    inbox = Inbox()
    return Poller(project_id(project), session, inbox, run_reconcile=False), inbox


def test_a_notice_is_a_private_file_that_round_trips(project: Path) -> None:
    notice = notice_for(project, "a", data={"url": "https://example.org", "bytes": 3})
    path = NoticeStore().path(notice.project_id, notice.id)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    loaded = NoticeStore().load(notice.project_id, notice.id)
    assert loaded == notice


@pytest.mark.parametrize(
    ("kind", "project", "session"),
    [("Bad Kind", "p1", "s"), ("oracle", "p1", "s"), ("fetch", "../x", "s"), ("fetch", "p", "")],
)
def test_bad_kinds_and_owners_are_refused(
    oraculum_home: Path, kind: str, project: str, session: str
) -> None:
    with pytest.raises(OracleError) as caught:
        post_notice(Owner(project, session), kind=kind, source_id="x", title="t", text="", data={})
    assert caught.value.code in ("invalid_argument", "invalid_session_id")
    assert not (oraculum_home / "state" / "notices").exists() or not any(
        (oraculum_home / "state" / "notices").rglob("*.json")
    )


def test_the_owner_gets_it_once_and_it_is_settled(project: Path) -> None:
    notice = notice_for(project, "a", title="fetched example.org", text="3 bytes")
    poller, inbox = poller_for(project, "a")
    sent = poller.scan()
    assert [w.job_id for w in sent] == [notice.id]
    wakeup = inbox.drain()[0]
    assert wakeup.is_notice and wakeup.kind == "fetch" and wakeup.title == "fetched example.org"
    assert "3 bytes" in wakeup.text and wakeup.to_data()["noticeId"] == notice.id
    assert NoticeStore().load(notice.project_id, notice.id) is None  # settled: gone
    assert poller.scan() == []


def test_another_live_session_waits_while_the_owner_lives(project: Path) -> None:
    notice = notice_for(project, "owner")
    other, _ = poller_for(project, "other")
    with SessionLiveness(project_id(project), "owner"):
        assert other.scan() == [] and other.pending() == []
    # The owner is gone: a live session of the same project adopts it.
    sent = other.scan()
    assert [w.job_id for w in sent] == [notice.id]
    assert sent[0].to_data()["adopted"] is True


def test_another_project_never_gets_it(project: Path, tmp_path: Path) -> None:
    notice_for(project, "gone")
    stranger = Poller("0123456789abcdef", "s", Inbox(), run_reconcile=False)
    assert stranger.scan() == []
    assert len(NoticeStore().ids(project_id(project))) == 1


def test_collect_then_abandon_leaves_it_due_then_commit_settles(project: Path) -> None:
    notice = notice_for(project, "a")
    poller, _ = poller_for(project, "a")
    prepared = poller.collect()
    assert [w.job_id for w in prepared] == [notice.id]
    # While the claim is held, another host of the session gets nothing.
    twin, _ = poller_for(project, "a")
    assert twin.collect() == []
    poller.abandon(prepared[0])
    again = twin.collect()
    assert [w.job_id for w in again] == [notice.id]
    twin.commit(again[0])
    assert poller.collect() == [] and twin.pending() == []


def test_an_expired_claim_is_taken_over(project: Path) -> None:
    notice = notice_for(project, "a")
    records = claims.NoticeRecords(NoticeStore(), notice.project_id)
    old = utc_now() - timedelta(minutes=2)
    wanted = lambda n: claims.wants_notice(n, old)  # noqa: E731
    assert claims.take(records, notice.id, "stale", now=old, wanted=wanted) is not None
    now = utc_now()
    assert claims.take(records, notice.id, "x", now=now, wanted=lambda n: True) is not None
    assert claims.take(records, notice.id, "y", now=now, wanted=lambda n: True) is None


def test_wait_without_a_job_ends_on_a_notice(project: Path) -> None:
    notice = notice_for(project, "a", title="done")
    result = wait(caller=Caller(session="a", jobs=JobStore()), timeout_s=5, poll_s=0.02)
    assert result.done is True and result.job is None
    assert result.delivery is not None and result.delivery.delivered is True
    assert [w["noticeId"] for w in result.to_json()["wakeups"]] == [notice.id]
    assert NoticeStore().load(notice.project_id, notice.id) is None


def test_pending_lists_notices_without_claiming(project: Path) -> None:
    notice = notice_for(project, "a")
    poller, _ = poller_for(project, "a")
    due = poller.pending()
    assert [n.id for n in due if isinstance(n, Notice)] == [notice.id]
    assert NoticeStore().load(notice.project_id, notice.id).claimed_by is None  # type: ignore[union-attr]
