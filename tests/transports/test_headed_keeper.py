"""A headed keeper on a virtual display (Xvfb): here a background tab really is hidden (no
animation frames), unlike in headless Chromium, so this is where hidden-tab handling and the
user's focus are checked for real. Skipped where Xvfb is not installed."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from homes import finished
from oraculum.browser import cdp, keeper
from oraculum.core.paths import private_home_environment
from oraculum.jobs.model import Status
from oraculum.simulator import SimulatorThread
from providers.conftest import submit_chatgpt

from .conftest import page_targets, sign_in_and_open_sentinel, tab_state
from .test_managed_jobs import log_of, managed_config

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("Xvfb") is None, reason="needs Xvfb (apt-get install xvfb)"),
]


@contextlib.contextmanager
def virtual_display() -> Iterator[str]:
    """An Xvfb display on the first free number from :90."""
    number = next(n for n in range(90, 200) if not Path(f"/tmp/.X{n}-lock").exists())
    proc = subprocess.Popen(
        ["Xvfb", f":{number}", "-screen", "0", "1280x900x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while not Path(f"/tmp/.X11-unix/X{number}").exists():
            assert proc.poll() is None and time.monotonic() < deadline, "Xvfb did not start"
            time.sleep(0.05)
        yield f":{number}"
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture(scope="module")
def headed_keeper(
    tmp_path_factory: pytest.TempPathFactory, sim: SimulatorThread
) -> Iterator[tuple[cdp.Endpoint, str]]:
    home = tmp_path_factory.mktemp("headed-home")
    with pytest.MonkeyPatch.context() as patch, virtual_display() as display:
        patch.setenv("DISPLAY", display)
        for name, value in private_home_environment(home).items():
            patch.setenv(name, value)
        record, _ = keeper.start_keeper(managed_config(sim, headed="auto"))
        try:
            assert record.headed  # auto: a display exists
            endpoint = asyncio.run(keeper.prove_keeper(record))
            yield endpoint, asyncio.run(sign_in_and_open_sentinel(endpoint, sim))
        finally:
            keeper.stop_keeper()


def test_a_background_tab_of_the_headed_keeper_really_is_hidden(headed_keeper) -> None:
    endpoint, sentinel = headed_keeper

    async def look() -> list[object]:
        created = await cdp.call(
            endpoint.ws_url, "Target.createTarget", {"url": "about:blank", "background": True}
        )
        try:
            return await tab_state(endpoint.ws_url, created["targetId"])
        finally:
            await cdp.call(endpoint.ws_url, "Target.closeTarget", {"targetId": created["targetId"]})

    assert asyncio.run(look()) == ["hidden", False]
    assert asyncio.run(tab_state(endpoint.ws_url, sentinel)) == ["visible", True]


def test_jobs_in_background_tabs_complete_while_the_user_keeps_focus(
    headed_keeper, sim, tmp_path
) -> None:
    endpoint, sentinel = headed_keeper
    tabs_before = asyncio.run(page_targets(endpoint.http_url))
    hidden = submit_chatgpt(
        tmp_path / "p1",
        managed_config(sim, headed="auto", scenario="hidden_tab", hidden_after_chars=30),
    )
    plain = submit_chatgpt(tmp_path / "p2", managed_config(sim, headed="auto"), prompt="Plain")
    seen = []
    while not all(finished_or_none(j.id) for j in (hidden, plain)):
        seen.append(asyncio.run(tab_state(endpoint.ws_url, sentinel)))
        time.sleep(0.5)
    for job in (hidden, plain):
        done = finished(job.id)
        assert done.status == Status.COMPLETE, f"{done.error}\n{log_of(done)}"
        assert f"context-{job.id}.tar.zst" in Path(done.response_path).read_text()
    assert "reload recovered" in log_of(finished(hidden.id))
    assert seen and all(state == ["visible", True] for state in seen)  # during the jobs
    assert asyncio.run(tab_state(endpoint.ws_url, sentinel)) == ["visible", True]
    assert asyncio.run(page_targets(endpoint.http_url)) == tabs_before


def finished_or_none(job_id: str) -> bool:
    from oraculum.jobs.store import JobStore

    job = JobStore().load(job_id)
    return job.is_terminal and not job.cleanup_pending


def test_the_jobs_own_tab_renders_while_it_drives_it(headed_keeper) -> None:
    """The pin lets Playwright's focus emulation through for the job's own tab, which keeps
    that tab rendering (animation frames fire) though it is a background tab."""
    from oraculum.browser.transport import job_tab

    endpoint, sentinel = headed_keeper

    async def drive() -> tuple[str, bool]:
        async with job_tab(endpoint) as page:
            await page.goto("data:text/html,<title>job</title>")
            frame = "new Promise(resolve => requestAnimationFrame(() => resolve(true)))"
            rendered = await asyncio.wait_for(page.evaluate(frame), 30)
            return await page.evaluate("document.visibilityState"), rendered

    assert asyncio.run(drive()) == ("visible", True)
    assert asyncio.run(tab_state(endpoint.ws_url, sentinel)) == ["visible", True]
