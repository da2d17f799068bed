"""The duplicate guard (issue 43 §3): its key, and that concurrent identical submits from
several processes admit exactly one (admission decides under its lock)."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from oraculum.core.errors import OracleError
from oraculum.jobs.duplicates import submission_digest
from oraculum.jobs.model import JobSelection
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.dryrun import estimated_tokens
from oraculum.service.submit import submit

CTX = multiprocessing.get_context("fork")
PROCESSES = 4
PROMPT = "Is this parser correct?"


def test_the_key_is_prompt_archive_provider_preset_and_thread() -> None:
    pro = JobSelection(provider="chatgpt", preset="pro_extended")
    base = submission_digest(PROMPT, "a" * 64, "chatgpt", pro)
    assert base == submission_digest(PROMPT, "a" * 64, "chatgpt", pro)
    others = {
        submission_digest(PROMPT + " ", "a" * 64, "chatgpt", pro),
        submission_digest(PROMPT, "b" * 64, "chatgpt", pro),
        submission_digest(PROMPT, "a" * 64, "grok", JobSelection(provider="grok", mode="heavy")),
        submission_digest(PROMPT, "a" * 64, "chatgpt", JobSelection(preset="thinking_heavy")),
        submission_digest(PROMPT, "a" * 64, "chatgpt", pro, thread="1m95vee1k3h24"),
    }
    assert base not in others and len(others) == 5
    # The label and other display fields are no part of the request.
    labelled = JobSelection(provider="chatgpt", preset="pro_extended", label="Pro Extended")
    assert submission_digest(PROMPT, "a" * 64, "chatgpt", labelled) == base


def test_token_estimate_is_bytes_over_four_rounded_up() -> None:
    estimate = estimated_tokens("ab€", 9)  # 5 UTF-8 bytes
    assert estimate["prompt"] == 2 and estimate["archive"] == 3 and estimate["total"] == 5


def _submitter(project: str, start, results) -> None:
    start.wait(30)
    try:
        job = submit(
            PROMPT,
            ["src"],
            caller=Caller(cwd=Path(project), session="dup-race"),
            provider="test",
            selection_extras={"outcome": "hang"},
        )
        results.put(("admitted", job.job["id"]))
    except OracleError as error:
        results.put((error.code, error.details.get("jobId")))


@pytest.mark.slow
def test_concurrent_identical_submits_admit_exactly_one(project: Path) -> None:
    start, results = CTX.Event(), CTX.Queue()
    args = (str(project), start, results)
    procs = [CTX.Process(target=_submitter, args=args) for _ in range(PROCESSES)]
    for proc in procs:
        proc.start()
    start.set()
    rows = [results.get(timeout=120) for _ in procs]
    for proc in procs:
        proc.join(30)
        assert proc.exitcode == 0
    admitted = [job_id for code, job_id in rows if code == "admitted"]
    assert len(admitted) == 1, rows
    assert sorted(rows) == sorted(
        [("admitted", admitted[0])] + [("duplicate_job", admitted[0])] * (PROCESSES - 1)
    )
    assert JobStore().list_ids() == admitted
