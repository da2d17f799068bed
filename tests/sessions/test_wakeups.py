"""Wake-up delivery: claims, adoption, settlement, retries, retention — upstream scenarios
89-115 where they apply to a CLI + MCP host."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from oraculum.core.errors import OracleError
from oraculum.core.project import project_id
from oraculum.jobs.model import Phase, utc_now
from oraculum.jobs.retention import remove_job
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.read import read
from oraculum.service.status import status
from oraculum.sessions import claims
from oraculum.sessions import poller as poller_module
from oraculum.sessions.liveness import SessionLiveness, is_live, live_session_keys
from oraculum.sessions.poller import Poller, newest_per_job
from oraculum.sessions.sinks import Inbox, hook_sink
from oraculum.sessions.wakeup import Wakeup

from .jobs_support import finished_job


@pytest.fixture
def store(project: Path) -> JobStore:
    return JobStore()


def poller_for(project: Path, session: str, sink=None, **kwargs) -> tuple[Poller, Inbox]:
    inbox = Inbox()
    return Poller(project_id(project), session, sink or inbox, **kwargs), inbox


def test_two_claimants_exactly_one_wins(project: Path, store: JobStore) -> None:  # 89
    job = finished_job(store, project, "a")
    now = utc_now()
    first = claims.try_claim(store, job.id, "p1", now=now)
    second = claims.try_claim(store, job.id, "p2", now=now)
    assert first is not None and second is None
    claims.note_requested(store, job.id, "p1", now=now)
    after = store.load(job.id)
    assert after.notify_claimed_by is None and after.wakeup_attempt_count == 1
    assert claims.try_claim(store, job.id, "p2", now=now + timedelta(seconds=1)) is None


def test_expired_claim_is_taken_over(project: Path, store: JobStore) -> None:  # 90, 109
    job = finished_job(store, project, "a")
    old = utc_now() - timedelta(minutes=2)
    assert claims.try_claim(store, job.id, "stale", now=old) is not None
    now = utc_now()
    assert claims.try_claim(store, job.id, "fresh", now=now) is not None
    assert not claims.record_target(store, job.id, "stale", "a", now=now)
    assert claims.record_target(store, job.id, "fresh", "a", now=now)
    assert store.load(job.id).wakeup_target_session == "a"


def test_own_session_gets_one_wakeup_with_the_seed_text(project: Path, store: JobStore) -> None:
    job = finished_job(store, project, "a")  # 95
    poller, inbox = poller_for(project, "a")
    sent = poller.scan()
    assert [w.job_id for w in sent] == [job.id]
    text = sent[0].text
    assert f"Oracle job {job.id} is complete." in text
    assert f"oraculum read {job.id}" in text and "oracle_read" in text
    assert f"Response file: {job.response_path}" in text
    assert f"Artifacts: {store.paths(job.id).artifacts_dir}" in text
    assert "not an instruction to run oracle_auth, oracle_submit or oracle_cancel" in text
    assert inbox.drain() == sent
    assert poller.scan() == []  # the next one is due 15 s later
    after = store.load(job.id)
    assert after.wakeup_attempt_count == 1 and after.wakeup_target_session == "a"
    assert after.wakeup_settled_at is None  # sending is not settling


def test_failed_job_says_response_unavailable(project: Path, store: JobStore) -> None:  # 73
    finished_job(store, project, "a", outcome=Phase.FAILED, response=None)
    sent = poller_for(project, "a")[0].scan()
    assert "Response file: unavailable yet" in sent[0].text
    assert "Error: It failed." in sent[0].text


def test_retry_schedule_and_at_most_three(project: Path, store: JobStore) -> None:  # 115
    job = finished_job(store, project, "a")
    poller, _ = poller_for(project, "a")
    start = utc_now()
    assert len(poller.scan(now=start)) == 1
    assert poller.scan(now=start + timedelta(seconds=14)) == []
    assert len(poller.scan(now=start + timedelta(seconds=15))) == 1
    assert poller.scan(now=start + timedelta(seconds=70)) == []
    assert len(poller.scan(now=start + timedelta(seconds=76))) == 1
    assert poller.scan(now=start + timedelta(hours=1)) == []
    assert store.load(job.id).wakeup_attempt_count == 3


def test_read_after_a_reminder_settles(project: Path, store: JobStore) -> None:  # 93
    job = finished_job(store, project, "a")
    poller, _ = poller_for(project, "a")
    start = utc_now()
    poller.scan(now=start)
    read(job.id, caller=Caller(session="a"))
    after = store.load(job.id)
    assert after.wakeup_settled_source == "oracle_read"
    assert after.wakeup_settled_session == "a"
    assert poller.scan(now=start + timedelta(minutes=5)) == []


def test_status_before_first_reminder_only_observes(project: Path, store: JobStore) -> None:
    job = finished_job(store, project, "a")  # 94
    status(job.id, caller=Caller(session="a"))
    observed = store.load(job.id)
    assert observed.wakeup_observed_source == "oracle_status"
    assert observed.wakeup_settled_at is None
    poller, _ = poller_for(project, "a")
    assert len(poller.scan()) == 1
    status(job.id, caller=Caller(session="a"))
    assert store.load(job.id).wakeup_settled_source == "oracle_status"


def test_origin_reading_first_settles_but_others_only_observe(
    project: Path, store: JobStore
) -> None:
    mine = finished_job(store, project, "a")
    theirs = finished_job(store, project, "b")
    read(mine.id, caller=Caller(session="a"))
    read(theirs.id, caller=Caller(session="a"))
    assert store.load(mine.id).wakeup_settled_source == "oracle_read"
    assert store.load(theirs.id).wakeup_settled_at is None
    with SessionLiveness(project_id(project), "b"):
        sent = poller_for(project, "b")[0].scan()
    assert [w.job_id for w in sent] == [theirs.id]


def test_sessionless_jobs_are_never_rebound(project: Path, store: JobStore) -> None:  # 97
    finished_job(store, project, None)
    assert poller_for(project, "a")[0].scan() == []


def test_orphan_adopted_only_within_the_project(project: Path, store: JobStore) -> None:
    orphan = finished_job(store, project, "gone")  # 101
    other_project = poller_for(project.parent, "x")[0]
    other_project.project_id = "f" * 16
    assert other_project.scan() == []
    sent = poller_for(project, "adopter")[0].scan()
    assert [w.job_id for w in sent] == [orphan.id]
    assert sent[0].to_dict()["adopted"] is True
    assert store.load(orphan.id).wakeup_target_session == "adopter"


def test_live_origin_blocks_other_sessions(project: Path, store: JobStore) -> None:  # 102, 105
    job = finished_job(store, project, "origin")
    with SessionLiveness(project_id(project), "origin"):
        assert poller_for(project, "other")[0].scan() == []
        assert store.load(job.id).wakeup_attempt_count == 0
    assert len(poller_for(project, "other")[0].scan()) == 1


def test_origin_returning_after_the_claim_wins(
    project: Path, store: JobStore, monkeypatch: pytest.MonkeyPatch
) -> None:  # 106, 107
    job = finished_job(store, project, "origin")
    revived: list[SessionLiveness] = []
    real_claim = claims.try_claim

    def claim_then_origin_returns(*args, **kwargs):
        claimed = real_claim(*args, **kwargs)
        revived.append(SessionLiveness(project_id(project), "origin"))
        return claimed

    monkeypatch.setattr(poller_module.claims, "try_claim", claim_then_origin_returns)
    adopter, inbox = poller_for(project, "adopter")
    assert adopter.scan() == [] and inbox.drain() == []
    after = store.load(job.id)
    assert after.wakeup_attempt_count == 0 and after.notify_claimed_by is None
    monkeypatch.setattr(poller_module.claims, "try_claim", real_claim)
    assert [w.session_id for w in poller_for(project, "origin")[0].scan()] == ["origin"]
    revived[0].close()


def test_stale_snapshot_sends_nothing(project: Path, store: JobStore) -> None:  # 110
    job = finished_job(store, project, "a")
    first, _ = poller_for(project, "a")
    second, inbox = poller_for(project, "a")
    assert len(first.scan()) == 1
    assert second.deliver(job) is None and inbox.drain() == []
    assert store.load(job.id).wakeup_attempt_count == 1


def test_prunable_jobs_are_never_woken(project: Path, store: JobStore) -> None:  # 111
    old = utc_now() - timedelta(days=40)
    finished_job(store, project, "a", at=old)
    assert poller_for(project, "a")[0].scan() == []


def test_no_removal_while_a_delivery_is_in_flight(project: Path, store: JobStore) -> None:
    job = finished_job(store, project, "a")  # 112
    refusals: list[str] = []

    def sink(wakeup: Wakeup) -> None:
        with pytest.raises(OracleError) as refused:
            remove_job(wakeup.job_id)
        refusals.append(refused.value.message)

    assert len(poller_for(project, "a", sink=sink)[0].scan()) == 1
    assert "wake-up delivery is in flight" in refusals[0]
    # 113, 114: after the send, the grace keeps the files the message points at.
    with pytest.raises(OracleError) as grace:
        remove_job(job.id)
    assert grace.value.code == "clean_blocked" and "Retry after" in grace.value.message
    assert Path(job.response_path).exists() and store.paths(job.id).dir.is_dir()


def test_a_failing_sink_releases_the_claim_and_counts_nothing(
    project: Path, store: JobStore
) -> None:
    job = finished_job(store, project, "a")

    def broken(_: Wakeup) -> None:
        raise RuntimeError("host gone")

    with pytest.raises(RuntimeError):
        poller_for(project, "a", sink=broken)[0].scan()
    after = store.load(job.id)
    assert after.notify_claimed_by is None and after.wakeup_attempt_count == 0
    assert len(poller_for(project, "a")[0].scan()) == 1


def test_stopped_poller_sends_nothing(project: Path, store: JobStore) -> None:  # 103
    job = finished_job(store, project, "a")
    poller, inbox = poller_for(project, "a")
    poller.active = False
    assert poller.scan() == [] and inbox.drain() == []
    assert store.load(job.id).wakeup_attempt_count == 0


def test_hook_gets_the_message_on_stdin_without_a_shell(project: Path, store: JobStore) -> None:
    job = finished_job(store, project, "a")
    out = project.parent / "hook-out.txt"
    script = (
        "import os,sys; "
        "open(sys.argv[1],'w').write(os.environ['ORACULUM_JOB_ID']+'|'+sys.stdin.read())"
    )
    sink = hook_sink([sys.executable, "-c", script, str(out)])
    inbox = Inbox()
    from oraculum.sessions.sinks import fan_out

    poller = Poller(project_id(project), "a", fan_out(inbox, sink))
    assert len(poller.scan()) == 1
    job_id, text = out.read_text().split("|", 1)
    assert job_id == job.id and text.startswith(f"Oracle job {job.id} is complete.")


def test_liveness_ends_with_its_process(project: Path) -> None:
    code = (
        "import sys,time; from oraculum.sessions.liveness import SessionLiveness;"
        "s=SessionLiveness('p'*16,'child'); print('up',flush=True); time.sleep(60)"
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "up"
        assert is_live("p" * 16, "child")
        assert "p" * 16 + "::child" in live_session_keys()
    finally:
        child.kill()
        child.wait()
    assert not is_live("p" * 16, "child")


def test_events_record_target_and_attempts(project: Path, store: JobStore) -> None:
    job = finished_job(store, project, "a")
    poller_for(project, "a")[0].scan()
    messages = [e.message for e in store.load(job.id).lifecycle_events]
    assert "Wake-up target: session a." in messages
    assert "Wake-up reminder requested (attempt 1)." in messages
    # A second reminder's "Last event" is the job's own last fact, not the bookkeeping.
    second = poller_for(project, "a")[0].scan(now=utc_now() + timedelta(seconds=16))
    assert "Last event:" in second[0].text and "Wake-up" not in second[0].text


# Issue 15 §2-3: a host that shows wake-ups only in its results (the MCP server) counts one
# only once a result carried it; until then the job record keeps it due for the next host.


def test_prepared_wakeup_counts_only_when_committed(project: Path, store: JobStore) -> None:
    job = finished_job(store, project, "a")
    poller, _ = poller_for(project, "a")
    prepared = poller.prepare(job)
    assert prepared is not None and prepared.attempt == 1
    held = store.load(job.id)
    assert held.wakeup_attempt_count == 0 and held.notify_claimed_by == poller.claimant
    assert poller_for(project, "a")[0].prepare(job) is None  # another host: the claim holds it
    poller.commit(prepared)
    after = store.load(job.id)
    assert after.wakeup_attempt_count == 1 and after.notify_claimed_by is None


def test_abandoned_wakeup_stays_due_for_the_next_host(project: Path, store: JobStore) -> None:
    job = finished_job(store, project, "a")
    first, _ = poller_for(project, "a")
    prepared = first.prepare(job)
    assert prepared is not None
    first.abandon(prepared)  # the host stopped before a result carried it
    released = store.load(job.id)
    assert released.wakeup_attempt_count == 0 and released.notify_claimed_by is None
    collected = poller_for(project, "a")[0].collect()
    assert [w.job_id for w in collected] == [job.id]


def test_pending_claims_and_counts_nothing(project: Path, store: JobStore) -> None:
    job = finished_job(store, project, "a")
    poller, inbox = poller_for(project, "a")
    assert [j.id for j in poller.pending()] == [job.id]
    assert [j.id for j in poller.pending()] == [job.id]  # still due: nothing was handed out
    after = store.load(job.id)
    assert after.wakeup_attempt_count == 0 and after.notify_claimed_by is None
    assert inbox.drain() == []


def test_status_of_a_pending_wakeup_does_not_settle_it(project: Path, store: JobStore) -> None:
    """A host noticed the job but no result showed the wake-up yet: the agent never saw it,
    so a status call observes, and the wake-up still goes out."""
    job = finished_job(store, project, "a")
    poller, _ = poller_for(project, "a")
    assert poller.pending()
    status(job.id, caller=Caller(session="a"))
    observed = store.load(job.id)
    assert observed.wakeup_settled_at is None and observed.wakeup_observed_source == "oracle_status"
    assert [w.job_id for w in poller.collect()] == [job.id]


def test_collect_gives_one_wakeup_per_job(project: Path, store: JobStore) -> None:
    jobs = [finished_job(store, project, "a") for _ in range(3)]
    poller, _ = poller_for(project, "a", delays=(timedelta(0),) * 3)
    first = poller.collect()
    assert sorted(w.job_id for w in first) == sorted(j.id for j in jobs)
    for wakeup in first:
        poller.commit(wakeup)
    again = poller.collect()  # due again at once with these delays: the next attempt, once each
    assert sorted((w.job_id, w.attempt) for w in again) == sorted((j.id, 2) for j in jobs)


def test_newest_per_job_keeps_the_newest_attempt() -> None:
    def wakeup(job_id: str, attempt: int) -> Wakeup:
        return Wakeup(
            job_id, "complete", "s", "s", "p", f"{job_id}#{attempt}", "", False, "", attempt
        )

    kept = newest_per_job([wakeup("a", 1), wakeup("b", 1), wakeup("a", 2)])
    assert [(w.job_id, w.attempt) for w in kept] == [("a", 2), ("b", 1)]


def test_mcp_surface_wakeup_names_the_tool_not_the_cli(project: Path, store: JobStore) -> None:
    job = finished_job(store, project, "a")
    poller, _ = poller_for(project, "a", surface="mcp")
    (prepared,) = poller.collect()
    assert f'`oracle_read {{"jobId": "{job.id}"}}`' in prepared.text
    assert "oraculum " not in prepared.text
    assert "text" not in prepared.to_data() and prepared.to_dict()["text"] == prepared.text


def test_the_hook_runs_once_per_job_though_the_agent_is_reminded(
    project: Path, store: JobStore
) -> None:
    finished_job(store, project, "a")
    calls = project.parent / "hook-calls.txt"
    script = "import sys; open(sys.argv[1], 'a').write('called\\n')"
    inbox = Inbox()
    from oraculum.sessions.sinks import fan_out

    poller = Poller(
        project_id(project),
        "a",
        fan_out(inbox, hook_sink([sys.executable, "-c", script, str(calls)])),
    )
    start = utc_now()
    assert len(poller.scan(now=start)) == 1
    assert len(poller.scan(now=start + timedelta(seconds=15))) == 1  # the agent's reminder
    assert len(poller.scan(now=start + timedelta(seconds=76))) == 1
    assert [w.attempt for w in inbox.drain()] == [1, 2, 3]
    assert calls.read_text() == "called\n"


def test_a_session_that_does_not_adopt_is_never_told_of_another_sessions_job(
    project: Path, store: JobStore
) -> None:
    orphan = finished_job(store, project, "gone")
    assert poller_for(project, "newcomer", adopt=False)[0].scan() == []
    assert store.load(orphan.id).wakeup_attempt_count == 0
    own = finished_job(store, project, "newcomer")
    assert [w.job_id for w in poller_for(project, "newcomer", adopt=False)[0].scan()] == [own.id]


def test_demo_jobs_are_never_adopted(project: Path, store: JobStore) -> None:
    demo = finished_job(store, project, "demo-123", request_source="demo")
    assert poller_for(project, "adopter")[0].scan() == []
    assert poller_for(project, "demo-123")[0].scan()[0].job_id == demo.id
