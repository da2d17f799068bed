"""Real processes post notices while two host processes of the owning session and one of
another session race to deliver them: every notice is told exactly once, to its owner."""

from __future__ import annotations

import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from oraculum.core.project import project_id
from oraculum.tasks import NoticeStore

pytestmark = pytest.mark.slow

POSTERS = 3
PER_POSTER = 40


def test_posted_notices_are_delivered_exactly_once(project: Path) -> None:
    pid = project_id(project)
    log = project.parent / "deliveries.log"
    poller_script = Path(__file__).parent.parent / "sessions" / "poller_proc.py"
    poster_script = Path(__file__).with_name("notice_proc.py")
    sessions = ("owner", "owner", "bystander")
    pollers = [
        subprocess.Popen(
            [sys.executable, str(poller_script), pid, session, str(log)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for session in sessions
    ]
    try:
        for proc in pollers:
            assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        posters = [  # all at once, while the pollers scan
            subprocess.Popen(
                [sys.executable, str(poster_script), pid, "owner", str(PER_POSTER)],
                stdout=subprocess.PIPE,
                text=True,
            )
            for _ in range(POSTERS)
        ]
        outputs = [p.communicate(timeout=60)[0] for p in posters]
        assert [p.returncode for p in posters] == [0] * POSTERS
        posted = {line for out in outputs for line in out.split()}
        assert len(posted) == POSTERS * PER_POSTER
        deadline = time.monotonic() + 60
        while NoticeStore().ids(pid):
            assert time.monotonic() < deadline, "some notices were never delivered"
            time.sleep(0.02)
    finally:
        for proc in pollers:
            if proc.stdin:
                proc.stdin.close()
        for proc in pollers:
            proc.wait(10)
    lines = [line.split() for line in log.read_text().splitlines()]
    per_notice = Counter(notice_id for _, notice_id, _ in lines)
    assert {n: c for n, c in per_notice.items() if c > 1} == {}
    assert set(per_notice) == posted
    assert {session for session, _, _ in lines} == {"owner"}  # the owner was live throughout
