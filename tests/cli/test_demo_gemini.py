"""`oraculum demo --provider gemini` as a new user runs it: a real process, the Gemini simulator."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_demo import demo_outside_a_project

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_demo_provider_gemini_runs_a_pro_job_against_the_gemini_simulator(
    oraculum_home: Path, tmp_path: Path
) -> None:
    result = demo_outside_a_project(tmp_path, "--provider", "gemini")
    job = result["job"]
    assert job["status"] == "complete", job.get("error")
    assert job["provider"] == "gemini" and job["selection"]["mode"] == "pro"
    assert job["observedSelection"]["shows"] == "Pro"
    assert job["collectionStatus"] == "complete", job.get("collectionGaps")
    assert job["chatUrl"].endswith(f"/app/{job['conversationId']}")
    assert f"context-{job['id']}.tar.gz" in result["response"]
    assert "demo" in job["config"]["browser"]["authSeedProfileDir"]
