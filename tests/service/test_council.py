"""The council (issue 43 §1) with the test provider's members and real workers: one archive per
format shared by hard link, independent members, one wake-up, council.md, synthesis, cancel,
capacity, and the refusals before anything is sent."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from homes import finished, write_fast_config
from oraculum.core.errors import OracleError
from oraculum.core.project import project_id
from oraculum.jobs.councils import CouncilStore
from oraculum.jobs.ids import is_council_ref, validate_council_id
from oraculum.jobs.model import Status
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.council import (
    council_dry_run,
    council_result,
    read_council,
    submit_council,
    wait_council,
)
from oraculum.service.wait import advance_councils
from oraculum.sessions.poller import Poller
from oraculum.sessions.sinks import Inbox
from oraculum.sessions.wakeup import Wakeup
from oraculum.tasks.notices import NoticeStore

PROMPT = "Which sort is right here?"
SESSION = "council-s"
FAIL = {"outcome": "fail"}


def _council(members: str, overrides: dict[str, Any] | None = None, **kwargs):  # type: ignore[no-untyped-def]
    caller = Caller(session=SESSION, overrides=overrides)
    return submit_council(PROMPT, members, ["src"], caller=caller, **kwargs)


def _scan_until_woken(project: Path, timeout: float = 90.0) -> list[Wakeup]:
    """Scan as a live host of the session would until the council's wake-up arrives."""
    inbox = Inbox()
    poller = Poller(project_id(project), SESSION, inbox, after_reconcile=advance_councils)
    woken: list[Wakeup] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not woken:
        poller.scan()
        woken += inbox.drain()
        time.sleep(0.2)
    # A few more scans: nothing else may come (members never wake anyone, the notice once).
    for _ in range(3):
        poller.scan()
        time.sleep(0.2)
    return woken + inbox.drain()


def test_members_share_one_archive_fail_independently_and_wake_once(project: Path) -> None:
    result = _council(
        "test:instant,test:thinking_heavy,test:pro_extended",
        member_extras={"test:pro_extended": FAIL},
    )
    council_id = result.council["id"]
    assert validate_council_id(council_id) == council_id and is_council_ref(council_id)
    store = JobStore()
    jobs = [store.load(m["jobId"]) for m in result.council["members"]]
    assert len({job.id for job in jobs}) == 3
    assert all(job.council_id == council_id for job in jobs)
    # One archive for the format, the same bytes in every member's job directory.
    assert len({job.archive_sha256 for job in jobs}) == 1
    for job in jobs:
        finished(job.id)
    woken = _scan_until_woken(project)
    assert [w.kind for w in woken] == ["council"], woken
    text = woken[0].text
    assert "2 of 3 members answered" in text and "test_provider_failed" in text
    assert f"oraculum read {council_id}" in text
    # No member job was ever claimed for a wake-up.
    assert all(store.load(job.id).wakeup_attempt_count == 0 for job in jobs)
    markdown = read_council(council_id).markdown or ""
    assert markdown.index("## test:instant") < markdown.index("## Gaps")
    assert "time taken:" in markdown and "model shown on the page:" in markdown
    assert "test:pro_extended (job" in markdown.split("## Gaps")[1]
    saved = CouncilStore().markdown_path(council_id)
    assert saved.read_text(encoding="utf-8") == markdown
    assert oct(saved.stat().st_mode & 0o777) == "0o600"
    assert oct(saved.parent.stat().st_mode & 0o777) == "0o700"
    # A second look posts nothing again.
    assert council_result(council_id).council["noticeId"] == result_notice(council_id)
    assert not list(NoticeStore().notices(project_id(project)))


def result_notice(council_id: str) -> str | None:
    return CouncilStore().load(council_id).notice_id


def test_synthesis_tops_council_md_and_the_wakeup_waits_for_it(project: Path) -> None:
    # The explicit config layer reaches the synthesis too (it is planned once members end).
    overrides = {"worker": {"pollMs": 250}}
    result = _council(
        "test:instant,test:thinking_heavy",
        synthesize="test:pro_extended",
        overrides=overrides,
    )
    council_id = result.council["id"]
    woken = _scan_until_woken(project)
    assert len(woken) == 1 and "Synthesis by test:pro_extended: answered" in woken[0].text
    council = CouncilStore().load(council_id)
    assert council.synthesis is not None and council.synthesis.job_id
    synthesis = JobStore().load(council.synthesis.job_id)
    assert synthesis.council_id == council_id and synthesis.status == Status.COMPLETE
    assert synthesis.config["worker"]["pollMs"] == 250
    assert "council-answers.md" in synthesis_prompt(synthesis.prompt_path)
    assert synthesis.completed_at is not None and council.ended_at is not None
    assert synthesis.completed_at <= council.ended_at
    markdown = read_council(council_id).markdown or ""
    assert markdown.index("## Synthesis by test:pro_extended") < markdown.index("## test:instant")
    assert "not a member's answer" in markdown


def test_cancel_ends_every_unfinished_member_and_wakes_once(project: Path) -> None:
    from oraculum.service.council import cancel_council

    hang = {"outcome": "hang"}
    result = _council(
        "test:instant,test:thinking_heavy",
        member_extras={"test:instant": hang, "test:thinking_heavy": hang},
    )
    council_id = result.council["id"]
    cancel_council(council_id)
    for member in result.council["members"]:
        assert finished(member["jobId"]).status == Status.CANCELLED
    woken = _scan_until_woken(project)
    assert len(woken) == 1 and "0 of 2 members answered" in woken[0].text


def test_capacity_one_queues_three_members_and_all_end(project: Path) -> None:
    write_fast_config({"queue": {"maxQueuedPerSlot": 2}}, capacity=1)
    result = _council("test:instant,test:thinking_heavy,test:pro_extended")
    statuses = sorted(job["status"] for job in result.jobs.values())
    assert statuses.count(Status.QUEUED.value) == 2, result.council["members"]
    ended = wait_council(result.council["id"], timeout_s=120)
    assert "## Gaps\n\nNone: every member answered." in (ended.markdown or "")


def test_deadline_ends_with_whatever_has_ended(project: Path) -> None:
    result = _council(
        "test:instant,test:thinking_heavy",
        member_extras={"test:thinking_heavy": {"outcome": "hang"}},
        deadline_s=3,
    )
    council_id = result.council["id"]
    woken = _scan_until_woken(project)
    assert len(woken) == 1 and "1 of 2 members answered" in woken[0].text
    assert "still" in woken[0].text and CouncilStore().load(council_id).ended_by_deadline


@pytest.mark.parametrize(
    ("members", "code"),
    [
        ("test:instant,nosuch:heavy", "council_member_unknown"),
        ("test:instant,test:nosuch", "council_member_unknown"),
        ("test:instant,test:instant", "council_member_duplicate"),
        ("test:instant,chatgpt:pro_extended", "council_member_not_signed_in"),
        (" , ", "council_member_unknown"),
    ],
)
def test_bad_members_are_refused_before_anything_is_sent(
    project: Path, members: str, code: str
) -> None:
    with pytest.raises(OracleError) as caught:
        _council(members)
    assert caught.value.code == code
    if code == "council_member_not_signed_in":
        assert "oraculum auth chatgpt" in (caught.value.suggested_next_step or "")
    assert JobStore().list_ids() == []
    assert not (CouncilStore().root.exists() and os.listdir(CouncilStore().root))


def test_dry_run_shows_each_member_and_the_shared_archive_once(project: Path) -> None:
    dry = council_dry_run(
        PROMPT, "test:instant,test:thinking_heavy", ["src"], caller=Caller(session=SESSION)
    )
    facts = dry.to_json()["dryRun"]
    assert len(facts["archives"]) == 1
    assert facts["archives"][0]["members"] == ["test:instant", "test:thinking_heavy"]
    assert [m["member"] for m in facts["members"]] == ["test:instant", "test:thinking_heavy"]
    text = dry.text("cli")
    assert text.count("Prompt as it will be typed") == 1 and text.count("Archive .tar") == 1
    assert JobStore().list_ids() == []


def test_a_member_its_submit_never_admitted_ends_after_the_grace(project: Path) -> None:
    from datetime import timedelta

    from oraculum.jobs.councils import Council, CouncilMember
    from oraculum.jobs.ids import new_council_id
    from oraculum.jobs.model import utc_now
    from oraculum.service.council import ADMISSION_GRACE, advance_council

    created = utc_now()
    council = CouncilStore().create(
        Council(
            id=new_council_id(),
            created_at=created,
            project_id=project_id(project),
            project_root=str(project),
            session_id=SESSION,
            prompt=PROMPT,
            members=[CouncilMember(name="test:instant", provider="test", preset="instant")],
        )
    )
    assert advance_council(council.id).ended_at is None  # its submit may still be admitting
    later = created + ADMISSION_GRACE + timedelta(seconds=1)
    ended = advance_council(council.id, now=later)
    assert ended.ended_at is not None and ended.members[0].error_code == "worker_lost"
    assert council.id not in CouncilStore().open_ids()


def synthesis_prompt(path: str) -> str:
    return Path(path).read_text(encoding="utf-8")
