"""A signed-in seed profile against a running simulator, and jobs that use it."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import json
import tarfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
import zstandard
from playwright.async_api import Browser, Page, async_playwright

from homes import SIMULATOR_WORKER, log_of, write_global_config
from oraculum.auth.simulator import seed_simulator_profile
from oraculum.browser.chromium import launch_args, resolve_executable
from oraculum.browser.session import LaunchOptions
from oraculum.core.config import Config, seed_profile_dir
from oraculum.core.paths import private_home_environment
from oraculum.core.presets import resolve_selection
from oraculum.jobs.admission import JobRequest, submit_job
from oraculum.jobs.model import Job, Status
from oraculum.service.caller import Caller
from oraculum.simulator import SimulatorThread

FAST_SIM = {"think_ms": 150, "token_ms": 2, "hydrate_ms": 80, "upload_ms": 120}


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorThread]:
    with SimulatorThread(**FAST_SIM) as running:
        yield running


def simulator_config(sim: SimulatorThread, **chat_knobs: Any) -> dict[str, Any]:
    """A global config for jobs against ``sim`` (its new-chat URL carrying ``chat_knobs``)."""
    return {
        "browser": {
            "chatUrl": sim.chat_url(**chat_knobs) if chat_knobs else sim.url + "/",
            "authUrl": sim.sign_in_url,
            "maxConcurrentJobs": 2,
        },
        "worker": SIMULATOR_WORKER,
        "queue": {"maxQueuedPerSlot": 5},
    }


def write_config(sim: SimulatorThread, **chat_knobs: Any) -> Config:
    return write_global_config(simulator_config(sim, **chat_knobs))


@contextlib.asynccontextmanager
async def headless_chromium() -> AsyncIterator[Browser]:
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=str(resolve_executable()), args=launch_args(), headless=True
        )
        try:
            yield browser
        finally:
            await browser.close()


@contextlib.asynccontextmanager
async def signed_in_page(browser: Browser, sim: SimulatorThread) -> AsyncIterator[Page]:
    """A page in a new context of ``browser`` signed in to ``sim`` (its session cookie); the
    context closes with the block."""
    context = await browser.new_context()
    try:
        await context.add_cookies([sim.session_cookie()])  # type: ignore[list-item]
        yield await context.new_page()
    finally:
        await context.close()


@contextlib.asynccontextmanager
async def simulator_page(sim: SimulatorThread) -> AsyncIterator[Page]:
    """A page of a fresh headless Chromium signed in to ``sim`` (its session cookie); the
    browser closes with the block."""
    async with headless_chromium() as browser, signed_in_page(browser, sim) as page:
        yield page


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def module_chromium() -> AsyncIterator[Browser]:
    """One headless Chromium for a module's page-level tests (no worker), which run on the
    module's event loop (``@pytest.mark.asyncio(loop_scope="module")``): each test takes its
    own context from it (``signed_in_page``), so they share the start-up, not cookies."""
    async with headless_chromium() as browser:
        yield browser


# Pages that stop a job before it sends: (scenario knobs, error code, diagnostics name).
BLOCKED_PAGES = pytest.mark.parametrize(
    ("knobs", "code", "diagnostics"),
    [
        ({"scenario": "challenge", "challenge_loads": 0}, "provider_challenge", "preflight"),
        ({"scenario": "outage", "outage_loads": 0}, "provider_outage", "preflight"),
        ({"scenario": "upload_fail"}, "upload_failed", "failure"),
    ],
)


def assert_failed_before_send(done: Job, code: str, diagnostics: str) -> None:
    """The job failed with ``code`` before sending, and saved the page's diagnostics."""
    assert done.status == Status.FAILED
    assert done.error_code == code, done.error
    assert done.prompt_send_state.value == "not_sent"
    for suffix in ("url.txt", "aria.txt", "text.txt", "png"):
        assert Path(done.logs_dir, f"{diagnostics}.{suffix}").exists(), suffix


def error_details(done: Job) -> dict[str, Any]:
    """The failure's ``details``: as the worker logged them, and as the job keeps them."""
    lines = [x for x in log_of(done).splitlines() if "error details: " in x]
    assert lines, log_of(done)
    logged: dict[str, Any] = json.loads(lines[-1].split("error details: ", 1)[1])
    assert done.error_details == logged
    return logged


def recollected(done: Job, project: Path, timeout_s: float = 60.0) -> Job:
    """Start `read --recollect` for a finished job and wait until the recollection finished;
    the job as it is then (its worker log shown when it never finishes)."""
    from oraculum.jobs.store import JobStore
    from oraculum.service.read import read

    started = read(done.id, caller=Caller(cwd=project), action="recollect").recollection
    assert started is not None and started.started is True
    deadline = time.monotonic() + timeout_s
    job = done
    while time.monotonic() < deadline:
        job = JobStore().load(done.id)
        if any("Recollection finished" in e.message for e in job.lifecycle_events):
            break
        time.sleep(0.3)
    assert any("Recollection finished" in e.message for e in job.lifecycle_events), log_of(job)
    return job


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory, sim: SimulatorThread) -> Iterator[Config]:
    """One oraculum home per module, its seed profile signed in through the simulator's
    login form (a real Chromium stores the session cookie)."""
    home = tmp_path_factory.mktemp("driver-home")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in private_home_environment(home).items():
            patch.setenv(name, value)
        config = write_config(sim)
        seed = seed_profile_dir(config, "chatgpt")
        asyncio.run(seed_simulator_profile(seed, sim.url, LaunchOptions.from_config(config)))
        yield config


def make_archive(directory: Path, files: dict[str, bytes]) -> tuple[Path, str]:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, data in sorted(files.items()):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    compressed = zstandard.ZstdCompressor().compress(raw.getvalue())
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"staged-{hashlib.sha256(compressed).hexdigest()[:12]}.tar.zst"
    path.write_bytes(compressed)
    return path, hashlib.sha256(compressed).hexdigest()


def submit_chatgpt(
    project: Path,
    config: Config,
    *,
    preset: str = "thinking_standard",
    prompt: str = "Summarise the project.",
    chat_url: str | None = None,
    conversation_id: str | None = None,
    follow_up_to: str | None = None,
) -> Job:
    archive, sha = make_archive(
        project.parent / "staging", {"README.md": b"# demo\n", "src/app.py": b"print('hi')\n"}
    )
    selection = resolve_selection("chatgpt", preset, config)
    return submit_job(
        JobRequest(
            project_root=project,
            prompt=prompt,
            provider="chatgpt",
            selection=selection.to_json_dict(),
            config=config,
            archive=archive,
            archive_sha256=sha,
            archive_bytes=archive.stat().st_size,
            session_id="s1",
            chat_url=chat_url,
            conversation_id=conversation_id,
            follow_up_to_job_id=follow_up_to,
        )
    )


@pytest.fixture
def revocable_seed(seeded: Config, sim: SimulatorThread) -> Iterator[Config]:
    """For tests whose scenario revokes the session: sign the seed in again afterwards."""
    yield seeded
    seed = seed_profile_dir(seeded, "chatgpt")
    asyncio.run(seed_simulator_profile(seed, sim.url, LaunchOptions.from_config(seeded)))


def assert_happy_chatgpt(job: Job, done: Job, picker: str, shows: str | None) -> None:
    """A finished ChatGPT job did the whole flow: its archive uploaded and named in the answer,
    the prompt sent once, the model read back as ``shows`` (its end) on ``picker``, the reply
    bound to this turn and saved as Markdown."""
    answer = Path(done.response_path).read_text()
    assert f"context-{job.id}.tar.zst" in answer and "src/app.py" in answer
    assert job.archive_sha256 in answer
    assert "Summarise the project." in answer  # the prompt is quoted back
    assert done.prompt_send_state.value == "accepted"
    assert done.chat_url and done.conversation_id and done.chat_url_verified
    assert done.chat_url.endswith(f"/c/{done.conversation_id}")
    assert done.observed_selection["picker"] == picker
    if shows:
        assert done.observed_selection["shows"].endswith(shows)
    assert not Path(done.runtime_profile_dir).exists()
    assert done.seed_generation
    # Bound to exactly this turn: its message id and a hash of its text.
    assert done.collection_binding["conversationId"] == done.conversation_id
    assert done.collection_binding["messageId"]
    assert done.response_fidelity == "derived_markdown"
    assert done.collection_status in ("complete", "partial")
    assert "?sig=" not in answer  # signed transport URLs never reach the saved answer
