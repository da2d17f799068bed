"""Issue 38 §11: `oraculum open JOB` prints the job's conversation URL (from any directory),
and says plainly when the job has none yet. A real process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from homes import finished
from oraculum.jobs import transitions
from oraculum.jobs.model import utc_now
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.submit import submit

ORACULUM = Path(sys.executable).with_name("oraculum")


def oraculum(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(ORACULUM), *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def test_open_prints_the_conversation_url_from_anywhere(project: Path, tmp_path: Path) -> None:
    job_id = submit("q", ["src"], caller=Caller(session="opener"), provider="test").job["id"]
    finished(job_id)
    none_yet = oraculum("--json", "open", job_id, cwd=project)
    assert none_yet.returncode == 1
    assert json.loads(none_yet.stdout)["error"]["code"] == "conversation_url_missing"
    url = "https://chatgpt.com/c/6793a1b2-0000-8000-9000-0123456789ab"
    JobStore().update(
        job_id, lambda j: transitions.update(j, at=utc_now(), source="t", patch={"chat_url": url})
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shown = oraculum("open", job_id[-6:], cwd=elsewhere)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == url
    assert json.loads(oraculum("--json", "open", job_id, cwd=project).stdout)["url"] == url
