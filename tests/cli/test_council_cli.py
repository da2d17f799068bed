"""`oraculum council` through the real command (issue 43 §1, §2): a dry run shows the shared
archive once, a council of test members is followed by `status`, `wait` and `read` with its
`cl-` id, and bad members are refused before anything is sent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from oraculum.jobs.store import JobStore

ORACULUM = str(Path(sys.executable).with_name("oraculum"))
MEMBERS = "test:instant,test:thinking_heavy"

pytestmark = pytest.mark.slow


def oraculum(project: Path, *args: str) -> tuple[int, Any, str]:
    env = dict(os.environ, ORACULUM_SESSION="council-cli")
    done = subprocess.run(
        [ORACULUM, *args], cwd=project, env=env, capture_output=True, text=True, timeout=180
    )
    document = json.loads(done.stdout) if "--json" in args and done.stdout else None
    return done.returncode, document, done.stdout + done.stderr


def test_dry_run_then_council_status_wait_and_read(project: Path) -> None:
    code, _, out = oraculum(project, "council", "-p", "Which?", "--members", MEMBERS, "--dry-run")
    assert code == 0, out
    assert "Dry run of a council of 2: nothing was sent" in out
    assert "Archive .tar.zst (built once, shared by test:instant, test:thinking_heavy)" in out
    assert out.count("Prompt as it will be typed") == 1 and JobStore().list_ids() == []

    code, document, out = oraculum(
        project, "council", "-p", "Which?", "--members", MEMBERS, "--json"
    )
    assert code == 0, out
    council_id = document["council"]["id"]
    assert council_id.startswith("cl-") and len(document["jobs"]) == 2

    code, document, out = oraculum(project, "status", council_id, "--json")
    assert code == 0 and document["council"]["id"] == council_id, out

    code, _, out = oraculum(project, "wait", council_id, "--timeout", "120")
    assert code == 0, out
    assert f"# Council {council_id}" in out and "## test:instant" in out

    code, _, out = oraculum(project, "read", council_id)
    assert code == 0 and "None: every member answered." in out, out


def test_bad_members_and_deadline_are_refused_by_the_command(project: Path) -> None:
    code, _, out = oraculum(project, "council", "-p", "Q", "--members", "test:instant,test:instant")
    assert code == 2 and "council_member_duplicate" in out, out
    code, _, out = oraculum(project, "council", "-p", "Q", "--members", "grok:heavy")
    assert code != 0 and "council_member_not_signed_in" in out and "oraculum auth grok" in out
    code, _, out = oraculum(project, "council", "-p", "Q", "--members", MEMBERS, "--deadline", "x")
    assert code == 2 and "--deadline" in out
    assert JobStore().list_ids() == []
