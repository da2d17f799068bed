"""What a scripted step waits for before it answers: facts about the test home's jobs.

The host tests share the oraculum home with the server pi starts (the `env` map points it
there), so the test reads the same job directories the server writes.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import time
from collections.abc import Awaitable, Callable

import psutil

from oraculum.jobs.model import Job
from oraculum.jobs.store import JobStore
from oraculum.sessions.liveness import live_sessions

from .scripted_model import Transcript

WAKEUP_FIRST_LINE = "Oracle job {job_id} is complete."


def wakeup_count(text: str, job_id: str) -> int:
    """How many times a text carries the job's completion wake-up (its documented first line)."""
    return text.count(WAKEUP_FIRST_LINE.format(job_id=job_id))


def only_job() -> Job:
    ids = JobStore().list_ids()
    assert len(ids) == 1, f"expected exactly one job in the test home, found {ids}"
    return JobStore().load(ids[0])


def job_id_in(transcript: Transcript) -> str:
    """The job id the latest submit result told the agent (what a model would copy)."""
    text = transcript.results_of("oracle_submit")[-1]
    match = re.search(r"\b[0-9a-hjkmnp-tv-z]{13}\b", text)
    assert match, f"no job id in the submit result: {text!r}"
    return match[0]


async def until(check: Callable[[], bool], what: str, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


async def job_finished() -> None:
    def check() -> bool:
        job = only_job()
        return job.is_terminal and not job.cleanup_pending

    await until(check, "the job to finish")


def job_finished_and_scanned(grace_s: float) -> Callable[[], Awaitable[None]]:
    """The job ended and the live server's wake-up scan has had time to pick it up: it
    counted an attempt, or ``grace_s`` (several scan intervals) passed."""

    async def gate() -> None:
        await job_finished()
        deadline = time.monotonic() + grace_s
        while only_job().wakeup_attempt_count == 0 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)

    return gate


def live_servers() -> list[str]:
    """The sessions of the host processes alive in the test home (an MCP server is one)."""
    return [live.session_id for live in live_sessions()]


class HeldWorker:
    """Freezes the job's worker (its whole process group) so a test decides when the job
    may finish. Signals only after checking the recorded pid and start time."""

    def __init__(self) -> None:
        self.pgid: int | None = None

    async def hold(self) -> None:
        await until(lambda: only_job().worker is not None, "the job's worker")
        job = only_job()
        assert job.worker is not None
        process = psutil.Process(job.worker.pid)
        assert abs(process.create_time() - job.worker.start_time) < 0.01, "not our worker"
        self.pgid = os.getpgid(job.worker.pid)
        assert self.pgid == job.worker.pid, "the worker leads its own process group"
        os.killpg(self.pgid, signal.SIGSTOP)
        assert not only_job().is_terminal, "the job ended before the test could hold it"

    def release(self) -> None:
        if self.pgid is not None:
            os.killpg(self.pgid, signal.SIGCONT)
            self.pgid = None
