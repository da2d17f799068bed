"""`oraculum demo --provider grok` as a new user runs it: a real process, the Grok simulator."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_demo_provider_grok_runs_a_heavy_job_against_the_grok_simulator(
    oraculum_home: Path, tmp_path: Path
) -> None:
    empty = tmp_path / "nowhere"
    empty.mkdir()
    exe = Path(sys.executable).with_name("oraculum")
    done = subprocess.run(
        [str(exe), "demo", "--provider", "grok", "--json"],
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
    assert job["status"] == "complete", job.get("error")
    assert job["provider"] == "grok" and job["selection"]["mode"] == "heavy"
    # Grok's archive format, uploaded and named back by the Grok look-alike.
    assert f"context-{job['id']}.tar.gz" in result["response"]
    assert "tiny_calc/ops.py" in result["response"]
    # A demo seed (Grok's own, beside the demo's ChatGPT one), never the real seed location.
    assert "demo" in job["config"]["browser"]["authSeedProfileDir"]
    assert not (oraculum_home / "data" / "seed-profiles").exists()


def test_demo_with_an_unknown_provider_is_refused(oraculum_home: Path, tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("oraculum")
    done = subprocess.run(
        [str(exe), "demo", "--provider", "bard", "--json"],
        cwd=tmp_path,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "invalid_provider"
    assert error["allowedValues"] == ["chatgpt", "grok"]
