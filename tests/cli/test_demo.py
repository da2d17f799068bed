"""`oraculum demo` as a new user runs it: a real process, outside any project."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_demo_completes_outside_a_project(oraculum_home: Path, tmp_path: Path) -> None:
    empty = tmp_path / "nowhere"
    empty.mkdir()
    exe = Path(sys.executable).with_name("oraculum")
    done = subprocess.run(
        [str(exe), "demo", "--json"],
        cwd=empty,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout)
    assert result["sampleProject"] is True
    job = result["job"]
    assert job["status"] == "complete"
    assert f"context-{job['id']}.tar.zst" in result["response"]
    assert "tiny_calc/ops.py" in result["response"]
    # The demo never touches the real seed profile location.
    assert "demo" in job["config"]["browser"]["authSeedProfileDir"]
    assert not (oraculum_home / "data" / "seed-profiles").exists()


def test_demo_human_output_renders_the_answer(oraculum_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "x"\n')
    (project / "main.py").write_text("print('hello')\n")
    exe = Path(sys.executable).with_name("oraculum")
    done = subprocess.run(
        [str(exe), "demo", "--shell", "redesign"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "complete — answer saved to" in done.stdout
    assert "main.py" in done.stdout
