"""The service operations with real workers (test provider), real locks and files."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from homes import write_fast_config
from oraculum.core.errors import OracleError
from oraculum.core.paths import jobs_dir
from oraculum.jobs import transitions
from oraculum.jobs.model import utc_now
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.cancel import cancel
from oraculum.service.clean import clean
from oraculum.service.preflight import preflight
from oraculum.service.read import read
from oraculum.service.status import status
from oraculum.service.submit import submit
from oraculum.service.wait import wait

pytestmark = pytest.mark.slow

HANG = {"outcome": "hang"}


def test_queue_position_and_capacity_line(project: Path) -> None:
    write_fast_config({"browser": {"maxConcurrentJobs": 1}, "queue": {"maxQueuedPerSlot": 2}})
    first = submit(
        "one", ["src"], caller=Caller(session="s"), provider="test", selection_extras=HANG
    )
    second = submit(
        "two", ["src"], caller=Caller(session="s"), provider="test", selection_extras=HANG
    )
    third = submit(
        "three", ["src"], caller=Caller(session="s"), provider="test", selection_extras=HANG
    )
    try:
        assert first.job["queue"] == {"queued": False}
        assert second.job["queue"] == {"queued": True, "position": 1, "depth": 1}
        later = status(second.job["id"]).to_json()["job"]["queue"]
        assert later == {"queued": True, "position": 1, "depth": 2}
        assert third.job["queue"] == {"queued": True, "position": 2, "depth": 2}
        assert list(third.to_json()) == ["job", "message"]
        assert "Queue position 2 of 2" in third.text("cli")
        assert "it starts by itself" in third.text("cli")
        assert "Queue position 2 of 2; it starts by itself." in third.text("mcp")
        report = preflight(caller=Caller(session="s"), provider="test").to_json()
        assert report["capacityLine"] == "Capacity: 1/1 active, 2/2 queued (global)."
        with pytest.raises(OracleError) as full:
            submit("four", ["src"], caller=Caller(session="s"), provider="test")
        assert full.value.code == "queue_full"
    finally:
        for job in (third, second, first):
            cancel(job.job["id"])
    assert not list((jobs_dir() / ".staging").iterdir())  # refused archive removed too


def test_follow_up_rules(project: Path) -> None:
    store = JobStore()
    running = submit(
        "q", ["src"], caller=Caller(session="s"), provider="test", selection_extras=HANG
    ).job
    with pytest.raises(OracleError) as not_complete:
        submit("f", ["src"], caller=Caller(session="s"), follow_up_job=running["id"])
    assert not_complete.value.code == "follow_up_job_not_complete"
    cancel(running["id"])
    with pytest.raises(OracleError) as missing:
        submit("f", ["src"], caller=Caller(session="s"), follow_up_job="zzzzzzzzzzzzz")
    assert missing.value.code == "follow_up_job_not_found"

    done = submit("q", ["src"], caller=Caller(session="s"), provider="test").job
    wait(done["id"], caller=Caller(session="s"))
    url = "https://chatgpt.com/c/abc-123"
    store.update(
        done["id"],
        lambda job: transitions.update(
            job, at=utc_now(), source="t", patch={"chat_url": url, "conversation_id": "abc-123"}
        ),
    )
    assert preflight(caller=Caller(session="s"), follow_up_job=done["id"]).provider == "test"
    with pytest.raises(OracleError) as conflict:
        submit(
            "f",
            ["src"],
            caller=Caller(session="s"),
            follow_up_job=done["id"],
            conversation="other-1",
        )
    assert conflict.value.code == "oracle_thread_target_conflict"
    follow = submit("f", ["src"], caller=Caller(session="s"), follow_up_job=done["id"]).job
    assert follow["followUpToJobId"] == done["id"] and follow["chatUrl"] == url
    assert follow["conversationId"] == "abc-123"
    wait(follow["id"], caller=Caller(session="s"))


def test_conversation_targets(project: Path) -> None:
    with pytest.raises(OracleError) as bad:
        submit("q", ["src"], caller=Caller(session="s"), provider="test", conversation="../x")
    assert bad.value.code == "invalid_chatgpt_conversation_id"
    job = submit(
        "q",
        ["src"],
        caller=Caller(session="s"),
        provider="test",
        conversation="https://chatgpt.com/c/abc-9",
    ).job
    assert job["conversationId"] == "abc-9"
    assert job["chatUrl"] == "https://chatgpt.com/c/abc-9"
    wait(job["id"], caller=Caller(session="s"))


def test_read_defaults_to_newest_and_clean_all(project: Path) -> None:
    write_fast_config({"cleanup": {"wakeupGraceMs": 0}})
    old = submit("old", ["src"], caller=Caller(session="s"), provider="test").job
    new = submit("new", ["src"], caller=Caller(session="s"), provider="test").job
    wait(old["id"], caller=Caller(session="s"))
    wait(new["id"], caller=Caller(session="s"))
    assert read(caller=Caller(session="s")).job["id"] == new["id"]
    hanging = submit(
        "h", ["src"], caller=Caller(session="s"), provider="test", selection_extras=HANG
    ).job
    cleaned = clean("all")
    assert set(cleaned.removed) == {old["id"], new["id"]}
    assert cleaned.skipped_open == [hanging["id"]]
    assert cleaned.to_json()["skippedOpen"] == [hanging["id"]]
    cancel(hanging["id"])
    with pytest.raises(OracleError) as usage:
        clean(None)
    assert usage.value.code == "invalid_argument"


def test_prompt_required_and_no_job_on_refusal(project: Path) -> None:
    for prompt in ("", "   "):
        with pytest.raises(OracleError) as empty:
            submit(prompt, ["src"], caller=Caller(session="s"), provider="test")
        assert empty.value.code == "invalid_argument"
    with pytest.raises(OracleError) as blank:
        submit("q", ["   "], caller=Caller(session="s"), provider="test")
    assert blank.value.code == "archive_input_blank"
    assert JobStore().list_ids() == []


def test_wait_for_the_sessions_next_job(project: Path) -> None:
    job = submit("next", ["src"], caller=Caller(session="nx"), provider="test").job
    started = time.monotonic()
    result = wait(caller=Caller(session="nx"), timeout_s=30)
    assert result.done and result.to_json()["wakeup"]["jobId"] == job["id"]
    assert time.monotonic() - started < 30
    timed_out = wait(caller=Caller(session="nobody-here"), timeout_s=0.2)
    assert timed_out.done is False and timed_out.job is None
    assert list(timed_out.to_json()) == ["done", "job", "elapsedSeconds", "message"]
    assert timed_out.text("cli") == "No oracle job of this session finished yet."
