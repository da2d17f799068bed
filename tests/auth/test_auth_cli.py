"""Issue 38 §11: `oraculum auth` as a person runs it (a real process, real Chromium against the
simulator) says it signed in once, and leaves no `oraculum-auth-*` directory in the temporary
directory; the run's diagnostics stay reachable in oraculum's own log directory."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from oraculum.auth.run_log import prune_runs
from oraculum.core.crashlog import log_dir
from oraculum.simulator import SimulatorThread

from .conftest import write_config


@pytest.fixture
def scratch() -> Iterator[Path]:
    """A temporary directory of its own with a short path (Chromium puts a socket in it)."""
    made = Path(tempfile.mkdtemp(prefix="oa-"))
    yield made
    shutil.rmtree(made, ignore_errors=True)


@pytest.mark.browser
@pytest.mark.slow
def test_a_sign_in_says_so_once_and_leaves_nothing_in_tmp(
    home: Path, sim: SimulatorThread, source_profile: Path, scratch: Path
) -> None:
    write_config(sim)
    done = subprocess.run(
        [
            str(Path(sys.executable).with_name("oraculum")),
            "auth",
            "--from-browser",
            str(source_profile),
        ],
        env=dict(os.environ, TMPDIR=str(scratch)),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    assert said.count("Signed in to ChatGPT as source@example.com") == 1, said
    assert not [p.name for p in scratch.iterdir() if p.name.startswith("oraculum-auth-")]
    (run,) = [p for p in log_dir().iterdir() if p.name.startswith("auth-")]
    assert f"Diagnostics: {run}" in said
    assert (run / "auth.log").is_file() and run.stat().st_mode & 0o777 == 0o700


def test_only_the_newest_runs_are_kept(tmp_path: Path) -> None:
    names = [f"auth-20261206T1200{n:02d}-x" for n in range(12)]
    for name in names:
        (tmp_path / name).mkdir()
    (tmp_path / "internal-1.log").write_text("kept: not an auth run")
    prune_runs(tmp_path, keep=3)
    assert sorted(p.name for p in tmp_path.iterdir()) == [*names[-3:], "internal-1.log"]
