"""Jobs on the managed transport: real workers, one real keeper Chromium, the simulator.

The keeper is started once for the module and signed in by hand (its own sign-in form, in a
tab the "user" keeps open): that tab is the sentinel whose visibility and focus the jobs must
never take.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from homes import bare_project, complete, finished, log_of, write_global_config  # noqa: F401 (bare_project: the fixture)
from oraculum.auth.seed_check import managed_session_problem
from oraculum.browser import cdp, keeper
from oraculum.core.config import Config, load_config
from oraculum.core.paths import private_home_environment
from oraculum.jobs.model import Status
from oraculum.service.caller import Caller
from oraculum.simulator import SimulatorThread
from providers.conftest import simulator_config, submit_chatgpt

from .conftest import page_targets, sign_in_and_open_sentinel, tab_state

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def managed_config(
    sim: SimulatorThread, *, on_demand: bool = True, headed: str = "headless", **chat_knobs: Any
) -> Config:
    data = simulator_config(sim, **chat_knobs)
    data["browser"] |= {
        "transport": "managed",
        "managed": {"headed": headed, "startOnDemand": on_demand},
    }
    return write_global_config(data)


@pytest.fixture(scope="module")
def keeper_home(
    tmp_path_factory: pytest.TempPathFactory, sim: SimulatorThread
) -> Iterator[tuple[cdp.Endpoint, str]]:
    """A private home whose keeper runs and is signed in; yields (endpoint, sentinel tab)."""
    home = tmp_path_factory.mktemp("managed-home")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in private_home_environment(home).items():
            patch.setenv(name, value)
        config = managed_config(sim)
        keeper.start_keeper(config)
        try:
            endpoint = asyncio.run(keeper.prove_keeper(_record()))
            sentinel = asyncio.run(sign_in_and_open_sentinel(endpoint, sim))
            yield endpoint, sentinel
        finally:
            keeper.stop_keeper()


def _record() -> keeper.KeeperRecord:
    record = keeper.read_record()
    assert record is not None
    return record


def test_the_keeper_records_its_endpoint_privately(keeper_home) -> None:
    endpoint, _ = keeper_home
    path = keeper.record_path()
    assert path.stat().st_mode & 0o777 == 0o600
    record = _record()
    assert endpoint.http_url == f"http://127.0.0.1:{record.port}"
    assert len(record.token) == 32
    status = asyncio.run(keeper.keeper_status())
    assert status["running"] and status["proven"]
    # Issue 38 §8: the running keeper is asked for its live cookies, and it is signed in.
    assert asyncio.run(managed_session_problem(load_config().config, "chatgpt")) is None
    # DevTools listens on loopback only (Chromium's own processes: the browser and its children).
    browser = psutil.Process(record.pid)
    listening = [
        c.laddr
        for proc in (browser, *browser.children(recursive=True))
        for c in proc.net_connections(kind="inet")
        if c.status == psutil.CONN_LISTEN and c.laddr.port == record.port
    ]
    assert listening and all(address.ip == "127.0.0.1" for address in listening)


def test_two_concurrent_jobs_are_two_background_tabs_of_one_keeper(
    keeper_home, sim, project
) -> None:
    endpoint, sentinel = keeper_home
    before = asyncio.run(tab_state(endpoint.ws_url, sentinel))
    assert before == ["visible", True]
    tabs_before = {t["id"] for t in asyncio.run(page_targets(endpoint.http_url))}
    config = managed_config(sim)
    jobs = [submit_chatgpt(project, config, prompt=f"Question {n}") for n in (1, 2)]
    assert all(j.status == Status.SUBMITTED for j in jobs)  # capacity 2: both run at once
    done = [complete(j) for j in jobs]
    for n, job in enumerate(done, 1):
        answer = Path(job.response_path).read_text()
        assert f"context-{job.id}.tar.zst" in answer and f"Question {n}" in answer
        assert job.observed_selection  # read from the composer, as on the isolated transport
        assert "transport managed" in log_of(job)
    assert done[0].conversation_id != done[1].conversation_id
    # The user's tab kept its visibility and focus; the jobs' tabs are gone again.
    assert asyncio.run(tab_state(endpoint.ws_url, sentinel)) == before
    assert {t["id"] for t in asyncio.run(page_targets(endpoint.http_url))} == tabs_before
    assert _record().pid == keeper.read_record().pid  # the same keeper throughout


def test_hidden_tab_scenario_passes_in_a_background_tab(keeper_home, sim, project) -> None:
    endpoint, sentinel = keeper_home
    config = managed_config(sim, scenario="hidden_tab", hidden_after_chars=30)
    job = submit_chatgpt(project, config)
    done = complete(job)
    assert "reload recovered" in log_of(done)
    answer = Path(done.response_path).read_text()
    assert job.archive_sha256 in answer and "src/app.py" in answer
    assert asyncio.run(tab_state(endpoint.ws_url, sentinel)) == ["visible", True]


def test_a_job_refuses_an_endpoint_that_does_not_prove_the_token(keeper_home, sim, project) -> None:
    record = _record()
    path = keeper.record_path()
    original = path.read_bytes()
    forged = original.replace(record.token.encode(), b"f" * 32)
    path.write_bytes(forged)
    try:
        job = submit_chatgpt(project, managed_config(sim))
        done = finished(job.id)
    finally:
        path.write_bytes(original)
    assert done.status == Status.FAILED
    assert done.error_code == "managed_endpoint_unproven", done.error
    assert done.prompt_send_state.value == "not_sent"


def test_recollection_runs_in_a_background_tab_of_the_keeper(keeper_home, sim, project) -> None:
    from oraculum.jobs.store import JobStore
    from oraculum.service.read import read

    endpoint, sentinel = keeper_home
    done = complete(submit_chatgpt(project, managed_config(sim), prompt="Recollect me"))
    tabs_before = asyncio.run(page_targets(endpoint.http_url))
    sent_before = len(sim.state.user_messages())
    again = read(done.id, caller=Caller(cwd=project), action="recollect").recollection
    assert again is not None and again.started is True
    deadline = time.monotonic() + 60
    job = done
    while not any("Recollection finished" in e.message for e in job.lifecycle_events):
        assert time.monotonic() < deadline, log_of(job)
        time.sleep(0.3)
        job = JobStore().load(done.id)
    assert job.collection_binding["messageId"] == done.collection_binding["messageId"]
    assert "transport managed" in log_of(job).split("recollect", 1)[-1]
    assert len(sim.state.user_messages()) == sent_before  # nothing was sent
    assert asyncio.run(tab_state(endpoint.ws_url, sentinel)) == ["visible", True]
    deadline = time.monotonic() + 30  # the recollection worker closes its tab as it ends
    while asyncio.run(page_targets(endpoint.http_url)) != tabs_before:
        assert time.monotonic() < deadline, asyncio.run(page_targets(endpoint.http_url))
        time.sleep(0.2)


def test_a_killed_workers_tab_is_closed_by_the_next_job(keeper_home, sim, project) -> None:
    from oraculum.jobs.store import JobStore

    endpoint, sentinel = keeper_home
    tabs_before = asyncio.run(page_targets(endpoint.http_url))
    job = submit_chatgpt(project, managed_config(sim, think_ms=20000))
    store = JobStore()
    deadline = time.monotonic() + 60
    while store.load(job.id).phase.value != "awaiting_response":
        assert time.monotonic() < deadline and not store.load(job.id).is_terminal
        time.sleep(0.2)
    worker = store.load(job.id).worker
    assert worker is not None
    psutil.Process(worker.pid).kill()  # no finally runs: its tab stays open
    lost = finished(job.id)
    assert lost.error_code == "worker_lost", lost.error
    assert len(asyncio.run(page_targets(endpoint.http_url))) == len(tabs_before) + 1
    after = complete(submit_chatgpt(project, managed_config(sim)))
    assert "closed 1 tab(s) left by a job whose worker died" in log_of(after)
    assert asyncio.run(page_targets(endpoint.http_url)) == tabs_before
    assert asyncio.run(tab_state(endpoint.ws_url, sentinel)) == ["visible", True]
