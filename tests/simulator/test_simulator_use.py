"""Issue 38 §7: `simulator use URL` points the real-use path at a running simulator (a seed of
its own, signed in by real Chromium), and `--off` puts the user's config back byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from homes import finished
from oraculum.core.errors import OracleError
from oraculum.core.paths import global_config_path
from oraculum.jobs.model import Status
from oraculum.service.caller import Caller
from oraculum.service.simulator_use import stop_using_simulator, use_simulator
from oraculum.service.submit import submit
from oraculum.simulator import SimulatorThread


@pytest.mark.browser
@pytest.mark.slow
def test_use_then_off_runs_a_real_job_and_restores_the_config(project: Path) -> None:
    path = global_config_path()
    own = path.read_bytes()  # the project fixture's fast config: the user's own
    with SimulatorThread(think_ms=100, token_ms=2) as sim:
        used = use_simulator(sim.url).to_json()
        assert used["provider"] == "chatgpt" and "use --off" in used["message"]
        config = json.loads(path.read_text())
        assert config["browser"]["chatUrl"] == sim.url + "/"
        assert config["worker"] == json.loads(own)["worker"]  # the rest is kept
        used_again = use_simulator(sim.url).to_json()  # a second use keeps the first backup
        assert Path(used_again["savedConfig"]).read_bytes() == own
        job = submit(
            "Say hi.", ["src"], caller=Caller(session="s1"), provider="chatgpt", preset="instant"
        )
        done = finished(job.job["id"], timeout=120)
        assert done.status == Status.COMPLETE, done.error
    stop_using_simulator()
    assert path.read_bytes() == own
    with pytest.raises(OracleError) as again:
        stop_using_simulator()
    assert again.value.code == "invalid_argument"


@pytest.mark.parametrize("url", ["https://chatgpt.com", "http://10.0.0.7:8765", "file:///etc"])
def test_only_a_simulator_on_this_machine(project: Path, url: str) -> None:
    before = global_config_path().read_bytes()
    with pytest.raises(OracleError) as refused:
        use_simulator(url)
    assert refused.value.code == "invalid_argument"
    assert global_config_path().read_bytes() == before


def test_nothing_answering_changes_nothing(project: Path) -> None:
    before = global_config_path().read_bytes()
    with pytest.raises(OracleError) as refused:
        use_simulator("http://127.0.0.1:9")
    assert "No oraculum simulator answers" in refused.value.message
    assert global_config_path().read_bytes() == before
