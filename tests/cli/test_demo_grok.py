"""`oraculum demo --provider grok` as a new user runs it: a real process, the Grok simulator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .test_demo import run_demo, site_demo_job

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_demo_provider_grok_runs_a_heavy_job_against_the_grok_simulator(
    oraculum_home: Path, tmp_path: Path
) -> None:
    # Grok's archive format, uploaded and named back by the Grok look-alike; a demo seed (Grok's
    # own, beside the demo's ChatGPT one), never the real seed location.
    _job, response = site_demo_job(tmp_path, "grok", "heavy")
    assert "tiny_calc/ops.py" in response
    assert not (oraculum_home / "data" / "seed-profiles").exists()


def test_demo_with_an_unknown_provider_is_refused(oraculum_home: Path, tmp_path: Path) -> None:
    done = run_demo("--provider", "bard", "--json", cwd=tmp_path, timeout=60)
    assert done.returncode != 0
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "invalid_provider"
    assert error["allowedValues"] == ["chatgpt", "grok", "gemini"]
