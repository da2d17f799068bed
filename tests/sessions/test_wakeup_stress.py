"""Three live sessions (two host processes each) plus orphaned jobs, 200 trials: every job is
woken exactly once, in the right session."""

from __future__ import annotations

import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from oraculum.core.project import project_id
from oraculum.jobs.model import utc_now
from oraculum.jobs.store import JobStore
from oraculum.sessions import claims

from .jobs_support import finished_job

pytestmark = pytest.mark.slow

SESSIONS = ("alpha", "beta", "gamma")
TRIALS = 200
PROCESSES_PER_SESSION = 2  # two host processes of one session race for its own jobs too
PER_ROUND = 10  # trials whose jobs finish together, so rounds overlap like real completions


def test_no_duplicates_no_misdeliveries(project: Path) -> None:
    store = JobStore()
    pid = project_id(project)
    log = project.parent / "deliveries.log"
    script = Path(__file__).with_name("poller_proc.py")
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), pid, session, str(log)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for session in SESSIONS
        for _ in range(PROCESSES_PER_SESSION)
    ]
    expected: dict[str, str | None] = {}  # job id → the session it must reach (None: any)
    try:
        for proc in procs:
            assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        for first in range(0, TRIALS, PER_ROUND):
            batch = []
            for trial in range(first, first + PER_ROUND):
                mine = finished_job(store, project, SESSIONS[trial % 3])
                orphan = finished_job(store, project, f"gone-{trial}")
                expected[mine.id] = mine.session_id
                expected[orphan.id] = None
                batch += [mine, orphan]
            deadline = time.monotonic() + 20
            while not all(store.load(j.id).wakeup_attempt_count for j in batch):
                assert time.monotonic() < deadline, f"round {first}: a wake-up never came"
                time.sleep(0.005)
            for job in batch:  # the agent reads it: no retry 15 s later
                claims.settle(store, job.id, source="oracle_read", session_id="test", now=utc_now())
    finally:
        for proc in procs:
            if proc.stdin:
                proc.stdin.close()
        for proc in procs:
            proc.wait(10)
    lines = [line.split() for line in log.read_text().splitlines()]
    per_job = Counter(job_id for _, job_id, _ in lines)
    duplicates = {job_id: n for job_id, n in per_job.items() if n > 1}
    assert not duplicates
    assert set(per_job) == set(expected)
    misdelivered = [
        (session, job_id)
        for session, job_id, _ in lines
        if expected[job_id] is not None and expected[job_id] != session
    ]
    assert not misdelivered
    adopters = Counter(session for session, job_id, _ in lines if expected[job_id] is None)
    assert set(adopters) <= set(SESSIONS)
    for job_id, session in expected.items():
        job = store.load(job_id)
        assert job.wakeup_attempt_count == 1
        assert job.wakeup_target_session == (session or job.wakeup_target_session)
