"""The ChatGPT driver in real Chromium against the simulator, through real worker processes."""

from __future__ import annotations

from pathlib import Path

import pytest

from oraculum.jobs.model import Status
from oraculum.jobs.store import JobStore

from .conftest import finished, submit_chatgpt, write_config

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def test_happy_path_classic_power(seeded, sim, project: Path) -> None:
    config = write_config(sim, shell="classic", picker="power")
    job = submit_chatgpt(project, config, preset="thinking_heavy")
    store = JobStore()
    done = finished(store, job.id)
    log = Path(done.logs_dir, "worker.log").read_text()
    assert done.status == Status.COMPLETE, f"{done.error}\n{log}"
    answer = Path(done.response_path).read_text()
    assert f"context-{job.id}.tar.zst" in answer
    assert "src/app.py" in answer
    assert done.prompt_send_state.value == "accepted"
    assert done.chat_url and "/c/" in done.chat_url and done.chat_url_verified
    assert done.observed_selection["picker"] == "power"
    assert done.observed_selection["shows"].endswith("Extra High")
