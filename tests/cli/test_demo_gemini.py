"""`oraculum demo --provider gemini` as a new user runs it: a real process, the Gemini simulator."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_demo import site_demo_job

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_demo_provider_gemini_runs_a_pro_job_against_the_gemini_simulator(
    oraculum_home: Path, tmp_path: Path
) -> None:
    job, _response = site_demo_job(tmp_path, "gemini", "pro")
    assert job["observedSelection"]["shows"] == "Pro"
    assert job["chatUrl"].endswith(f"/app/{job['conversationId']}")
