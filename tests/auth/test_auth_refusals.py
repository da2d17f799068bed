"""Issue 38 §11: `oraculum auth` refuses an unknown browser as bad input (exit 2) before it
starts anything, leaving no diagnostics directory behind. A real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from oraculum.core.crashlog import log_dir


def test_an_unknown_browser_is_refused_with_exit_2_and_nothing_left(
    oraculum_home: Path, tmp_path: Path
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    done = subprocess.run(
        [
            str(Path(sys.executable).with_name("oraculum")),
            "--json",
            "auth",
            "--from-browser",
            "firefoxx",
        ],
        cwd=tmp_path,
        env=dict(os.environ, TMPDIR=str(scratch)),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "invalid_argument" and "chrome" in error["allowedValues"]
    assert list(scratch.iterdir()) == []  # no diagnostics directory for bad input
    logs = log_dir()  # where a run's diagnostics go (issue 38 §11: never the temporary dir)
    assert not logs.exists() or not [p for p in logs.iterdir() if p.name.startswith("auth-")]
