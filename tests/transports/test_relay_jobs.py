"""Jobs on the relay transport: the "user's Chrome" is a real Chromium started here with a
DevTools port and signed in through the simulator's form in the user's own (sentinel) tab."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import psutil
import pytest
from playwright.async_api import async_playwright

from homes import SIMULATOR_WORKER, bare_project, finished, write_global_config  # noqa: F401 (bare_project: the fixture)
from oraculum.browser import cdp
from oraculum.browser.chromium import launch_args, resolve_executable
from oraculum.browser.relay import prove_relay
from oraculum.browser.tabpin import PinState, pinned_endpoint
from oraculum.core.config import Config
from oraculum.core.errors import OracleError
from oraculum.core.paths import private_home_environment
from oraculum.jobs.model import Status
from oraculum.jobs.store import JobStore
from oraculum.simulator import SimulatorThread
from providers.conftest import submit_chatgpt

from .conftest import page_targets, sign_in_and_open_sentinel, tab_state
from .test_managed_jobs import log_of

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def relay_config(sim: SimulatorThread, endpoint: str, **chat_knobs: Any) -> Config:
    return write_global_config(
        {
            "browser": {
                "transport": "relay",
                "relay": {"enabled": True, "endpoint": endpoint},
                "chatUrl": sim.chat_url(**chat_knobs) if chat_knobs else sim.url + "/",
                "maxConcurrentJobs": 2,
            },
            "worker": SIMULATOR_WORKER,
        }
    )


@contextlib.contextmanager
def users_chrome(
    profile: Path, *, headed: bool = False
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """A Chromium the user runs with a DevTools port; yields (process, http endpoint)."""
    argv = [str(resolve_executable()), *launch_args([] if headed else ["--headless=new"])]
    argv += ["--remote-debugging-port=0", f"--user-data-dir={profile}", "about:blank"]
    proc = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        active = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not active.exists() or len(active.read_text().split()) < 2:
            assert time.monotonic() < deadline and proc.poll() is None, "no DevTools port"
            time.sleep(0.1)
        yield proc, f"http://127.0.0.1:{active.read_text().split()[0]}"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


@pytest.fixture(scope="module")
def relay_home(
    tmp_path_factory: pytest.TempPathFactory, sim: SimulatorThread
) -> Iterator[tuple[subprocess.Popen[bytes], cdp.Endpoint, str]]:
    home = tmp_path_factory.mktemp("relay-home")
    with pytest.MonkeyPatch.context() as patch, users_chrome(home / "users-chrome") as (proc, url):
        for name, value in private_home_environment(home / "oraculum").items():
            patch.setenv(name, value)
        endpoint = asyncio.run(prove_relay(url, enabled=True))
        sentinel = asyncio.run(sign_in_and_open_sentinel(endpoint, sim))
        yield proc, endpoint, sentinel


def test_a_relay_job_owns_one_background_tab_and_leaves_the_users_alone(
    relay_home, sim, project
) -> None:
    proc, endpoint, sentinel = relay_home
    before = asyncio.run(tab_state(endpoint.ws_url, sentinel))
    assert before == ["visible", True]
    tabs_before = asyncio.run(page_targets(endpoint.http_url))
    job = submit_chatgpt(project, relay_config(sim, endpoint.http_url))
    done = finished(job.id)
    assert done.status == Status.COMPLETE, f"{done.error}\n{log_of(done)}"
    assert f"context-{job.id}.tar.zst" in Path(done.response_path).read_text()
    assert "transport relay" in log_of(done)
    assert asyncio.run(tab_state(endpoint.ws_url, sentinel)) == before
    # Exactly the user's tabs again, untouched (same ids, same pages); the browser still runs.
    assert asyncio.run(page_targets(endpoint.http_url)) == tabs_before
    assert proc.poll() is None


def test_the_tab_pin_shows_one_tab_and_refuses_to_bring_it_to_front(relay_home) -> None:
    _, endpoint, sentinel = relay_home

    async def drive() -> tuple[list[str], str, list[str], list[str]]:
        created = await cdp.call(
            endpoint.ws_url, "Target.createTarget", {"url": "about:blank", "background": True}
        )
        state = PinState(created["targetId"])
        try:
            async with pinned_endpoint(endpoint.ws_url, state) as url, async_playwright() as pw:
                browser = await pw.chromium.connect_over_cdp(url)
                pages = [p for c in browser.contexts for p in c.pages]
                await pages[0].goto("data:text/html,<title>job</title>")
                refusal = ""
                try:
                    await pages[0].bring_to_front()
                except Exception as exc:
                    refusal = str(exc)
                titles = [await p.title() for p in pages]
                return titles, refusal, state.refused, state.answered_locally
        finally:
            await cdp.call(endpoint.ws_url, "Target.closeTarget", {"targetId": state.target_id})

    titles, refusal, refused, answered = asyncio.run(drive())
    assert titles == ["job"]  # the user's tabs are not even listed
    assert "refused by oraculum's tab pin" in refusal
    assert "Page.bringToFront" in refused
    assert "Browser.setDownloadBehavior" in answered  # Playwright's, swallowed: settings kept
    assert asyncio.run(tab_state(endpoint.ws_url, sentinel)) == ["visible", True]


def test_popups_a_job_tab_opened_close_with_it(relay_home) -> None:
    from oraculum.browser.transport import job_tab

    _, endpoint, sentinel = relay_home
    tabs_before = asyncio.run(page_targets(endpoint.http_url))

    async def drive() -> int:
        async with job_tab(endpoint) as page:
            await page.goto("data:text/html,<title>job</title>")
            # Two popups (each evaluate is a user gesture, and each open uses one up).
            for _ in range(2):
                assert await page.evaluate("window.open('about:blank') !== null")
            deadline = asyncio.get_running_loop().time() + 15
            while len(await page_targets(endpoint.http_url)) < len(tabs_before) + 3:
                assert asyncio.get_running_loop().time() < deadline, "the popups never opened"
                await asyncio.sleep(0.1)
            return len(await page_targets(endpoint.http_url))

    assert asyncio.run(drive()) == len(tabs_before) + 3  # the job's tab and its popups
    deadline = time.monotonic() + 10  # a closed target leaves the listing a moment later
    while asyncio.run(page_targets(endpoint.http_url)) != tabs_before:
        assert time.monotonic() < deadline, asyncio.run(page_targets(endpoint.http_url))
        time.sleep(0.1)
    assert asyncio.run(tab_state(endpoint.ws_url, sentinel)) == ["visible", True]


class _FakeVersion(BaseHTTPRequestHandler):
    """Answers /json/version like Chrome, but its browser socket is somewhere else."""

    def do_GET(self) -> None:
        body = json.dumps(
            {
                "Browser": "Chrome/156.0",
                "webSocketDebuggerUrl": "ws://127.0.0.1:1/devtools/browser/"
                "0f6d2c1e-9a7b-4c55-8d3e-1b2a3c4d5e6f",
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def fake_endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeVersion)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_relay_endpoint_that_fails_the_proof_is_refused(
    oraculum_home, sim, fake_endpoint, tmp_path
) -> None:
    job = submit_chatgpt(tmp_path / "project", relay_config(sim, fake_endpoint))
    done = finished(job.id)
    assert done.status == Status.FAILED
    assert done.error_code == "relay_endpoint_unproven", done.error
    assert "points elsewhere" in (done.error or "")
    assert done.prompt_send_state.value == "not_sent"


def test_a_relay_endpoint_where_nothing_listens_is_refused(oraculum_home) -> None:
    with pytest.raises(OracleError) as info:
        asyncio.run(prove_relay("http://127.0.0.1:1", enabled=True))
    assert info.value.code == "relay_endpoint_unproven"


def test_a_relay_endpoint_off_loopback_is_refused_before_any_connection() -> None:
    # The config refuses it too; this is the job's own check, should a snapshot carry one.
    with pytest.raises(OracleError) as info:
        asyncio.run(prove_relay("http://192.0.2.1:9222", enabled=True))
    assert info.value.code == "relay_endpoint_refused"


def test_the_relay_needs_an_explicit_opt_in(oraculum_home) -> None:
    with pytest.raises(OracleError) as info:
        asyncio.run(prove_relay("http://127.0.0.1:9222", enabled=False))
    assert info.value.code == "relay_not_enabled"


def test_the_users_chrome_closing_mid_job_fails_it_as_relay_lost(sim, tmp_path) -> None:
    with pytest.MonkeyPatch.context() as patch, users_chrome(tmp_path / "chrome") as (proc, url):
        for name, value in private_home_environment(tmp_path / "home").items():
            patch.setenv(name, value)
        endpoint = asyncio.run(prove_relay(url, enabled=True))
        asyncio.run(sign_in_and_open_sentinel(endpoint, sim))
        job = submit_chatgpt(tmp_path / "project", relay_config(sim, url, think_ms=20000))
        store = JobStore()
        deadline = time.monotonic() + 60
        while store.load(job.id).phase.value != "awaiting_response":
            assert time.monotonic() < deadline and not store.load(job.id).is_terminal
            time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGKILL)
        done = finished(job.id)
        assert done.status == Status.FAILED
        assert done.error_code == "relay_browser_lost", f"{done.error}\n{log_of(done)}"
        if done.worker is not None:
            with contextlib.suppress(psutil.Error):
                psutil.Process(done.worker.pid).wait(30)


@pytest.mark.skipif(shutil.which("Xvfb") is None, reason="needs Xvfb (apt-get install xvfb)")
def test_a_relay_job_in_a_headed_chrome_never_takes_the_users_focus(sim, tmp_path) -> None:
    from .test_headed_keeper import finished_or_none, virtual_display

    with pytest.MonkeyPatch.context() as patch, virtual_display() as display:
        patch.setenv("DISPLAY", display)
        for name, value in private_home_environment(tmp_path / "home").items():
            patch.setenv(name, value)
        with users_chrome(tmp_path / "chrome", headed=True) as (proc, url):
            endpoint = asyncio.run(prove_relay(url, enabled=True))
            sentinel = asyncio.run(sign_in_and_open_sentinel(endpoint, sim))
            tabs_before = asyncio.run(page_targets(endpoint.http_url))
            job = submit_chatgpt(tmp_path / "project", relay_config(sim, url))
            seen = []
            while not finished_or_none(job.id):
                seen.append(asyncio.run(tab_state(endpoint.ws_url, sentinel)))
                time.sleep(0.5)
            done = finished(job.id)
            assert done.status == Status.COMPLETE, f"{done.error}\n{log_of(done)}"
            assert seen and all(state == ["visible", True] for state in seen)
            assert asyncio.run(tab_state(endpoint.ws_url, sentinel)) == ["visible", True]
            assert asyncio.run(page_targets(endpoint.http_url)) == tabs_before
            assert proc.poll() is None  # the user's browser is never closed
