"""Issue 38 §11: `followup` takes the prompt as `submit` does (`-p`, `--prompt-file`), every
argument after the job then being a file. The CLI runs as a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ORACULUM = Path(sys.executable).with_name("oraculum")


def oraculum(*args: str, cwd: Path) -> tuple[int, dict[str, Any]]:
    done = subprocess.run(
        [str(ORACULUM), "--json", *args],
        cwd=cwd,
        env=dict(os.environ, ORACULUM_SESSION="follow"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout)


def test_followup_takes_dash_p_and_every_later_argument_is_a_file(project: Path) -> None:
    (project / "notes.md").write_text("notes\n")
    code, first = oraculum("submit", "-p", "q", "--provider", "test", "--wait", "src", cwd=project)
    assert code == 0, first
    job_id = first["job"]["id"]
    code, follow = oraculum(
        "followup", job_id, "-p", "And the tests?", "notes.md", "src", cwd=project
    )
    assert code == 0, follow
    assert follow["job"]["archive"]["fileCount"] == 2  # notes.md and src/app.py
    code, waited = oraculum("wait", follow["job"]["id"], cwd=project)
    assert code == 0, waited
    answer = Path(waited["job"]["responsePath"]).read_text()
    assert answer.startswith("Test answer to: And the tests?")
    code, both = oraculum("followup", job_id, "-p", "x", "--prompt-file", "notes.md", cwd=project)
    assert code == 2 and both["error"]["code"] == "invalid_argument"
