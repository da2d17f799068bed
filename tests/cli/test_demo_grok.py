"""`oraculum demo --provider grok` as a new user runs it: a real process, the Grok simulator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .test_demo import demo_outside_a_project, run_demo

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_demo_provider_grok_runs_a_heavy_job_against_the_grok_simulator(
    oraculum_home: Path, tmp_path: Path
) -> None:
    result = demo_outside_a_project(tmp_path, "--provider", "grok")
    job = result["job"]
    assert job["status"] == "complete", job.get("error")
    assert job["provider"] == "grok" and job["selection"]["mode"] == "heavy"
    assert job["collectionStatus"] == "complete", job.get("collectionGaps")
    # Grok's archive format, uploaded and named back by the Grok look-alike.
    assert f"context-{job['id']}.tar.gz" in result["response"]
    assert "tiny_calc/ops.py" in result["response"]
    # A demo seed (Grok's own, beside the demo's ChatGPT one), never the real seed location.
    assert "demo" in job["config"]["browser"]["authSeedProfileDir"]
    assert not (oraculum_home / "data" / "seed-profiles").exists()


def test_demo_with_an_unknown_provider_is_refused(oraculum_home: Path, tmp_path: Path) -> None:
    done = run_demo("--provider", "bard", "--json", cwd=tmp_path, timeout=60)
    assert done.returncode != 0
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "invalid_provider"
    assert error["allowedValues"] == ["chatgpt", "grok", "gemini"]
