"""A signed-in seed profile against a running simulator, and jobs that use it."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import json
import os
import signal
import tarfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
import zstandard
from playwright.async_api import Browser, Page, async_playwright

from homes import SIMULATOR_WORKER, headless_browser, log_of, write_global_config
from oraculum.auth.simulator import seed_simulator_profile
from oraculum.browser.chromium import launch_args
from oraculum.browser.session import LaunchOptions
from oraculum.capture.collect import CollectionResult, recollect
from oraculum.core.config import Config, seed_profile_dir
from oraculum.core.paths import private_home_environment
from oraculum.core.presets import resolve_selection
from oraculum.jobs.admission import JobRequest, submit_job
from oraculum.jobs.model import Job, Status
from oraculum.jobs.store import JobStore
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
            executable_path=str(headless_browser()), args=launch_args(), headless=True
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


def sign_in_seed(config: Config, sim: SimulatorThread, provider: str = "chatgpt") -> None:
    """Sign ``provider``'s seed profile in through the simulator's login form (a real Chromium
    stores the session cookie)."""
    seed = seed_profile_dir(config, provider)
    options = LaunchOptions.from_config(config)
    asyncio.run(seed_simulator_profile(seed, sim.url, options, provider=provider))


def seeded_home(
    tmp_path_factory: pytest.TempPathFactory,
    sim: SimulatorThread,
    provider: str,
    config_of: Callable[[SimulatorThread], Config],
) -> Iterator[Config]:
    """One oraculum home per module, its ``provider`` seed signed in (a module fixture's body)."""
    home = tmp_path_factory.mktemp(f"{provider}-home")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in private_home_environment(home).items():
            patch.setenv(name, value)
        config = config_of(sim)
        sign_in_seed(config, sim, provider)
        yield config


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory, sim: SimulatorThread) -> Iterator[Config]:
    """One oraculum home per module, its seed profile signed in through the simulator's
    login form (a real Chromium stores the session cookie)."""
    yield from seeded_home(tmp_path_factory, sim, "chatgpt", write_config)


def site_config(url_key: str, sim: SimulatorThread, **knobs: Any) -> Config:
    """The global config for jobs against a Grok or Gemini simulator, its chat URL (the
    ``url_key`` setting) carrying ``knobs``."""
    return write_global_config(
        {
            "browser": {url_key: sim.chat_url(**knobs), "maxConcurrentJobs": 2},
            "worker": SIMULATOR_WORKER,
            "queue": {"maxQueuedPerSlot": 5},
        }
    )


def site_fixtures(provider: str, config_of: Callable[[SimulatorThread], Config]) -> tuple:
    """A Grok or Gemini driver module's fixtures, bound there by name: ``sim`` (its
    simulator), ``seeded`` (one home, its seed signed in) and ``revocable_seed`` (for tests
    whose scenario revokes the session: the seed is signed in again afterwards)."""

    @pytest.fixture(scope="module", name="sim")
    def site_sim() -> Iterator[SimulatorThread]:
        with SimulatorThread(provider=provider, **FAST_SIM) as running:
            yield running

    @pytest.fixture(scope="module", name="seeded")
    def site_seeded(
        tmp_path_factory: pytest.TempPathFactory, sim: SimulatorThread
    ) -> Iterator[Config]:
        yield from seeded_home(tmp_path_factory, sim, provider, config_of)

    @pytest.fixture(name="revocable_seed")
    def site_revocable_seed(seeded: Config, sim: SimulatorThread) -> Iterator[Config]:
        yield seeded
        sign_in_seed(seeded, sim, provider)

    return site_sim, site_seeded, site_revocable_seed


def make_archive(
    directory: Path, files: dict[str, bytes], compression: str = "zst"
) -> tuple[Path, str]:
    """A staged ``.tar.zst`` (ChatGPT's) or ``.tar.gz`` (``compression="gz"``: Grok's and
    Gemini's) holding ``files``; its path and SHA-256."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz" if compression == "gz" else "w") as tar:
        for name, data in sorted(files.items()):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    data = raw.getvalue()
    if compression == "zst":
        data = zstandard.ZstdCompressor().compress(data)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"staged-{hashlib.sha256(data).hexdigest()[:12]}.tar.{compression}"
    path.write_bytes(data)
    return path, hashlib.sha256(data).hexdigest()


def submit_provider_job(
    project: Path,
    config: Config,
    provider: str,
    choice: str,
    *,
    prompt: str = "Summarise the project.",
    follow_up: Job | None = None,
    chat_url: str | None = None,
    conversation_id: str | None = None,
    follow_up_to: str | None = None,
) -> Job:
    """Admit a job for ``provider`` in ``choice`` (a preset or mode) with the demo archive;
    with ``follow_up``, in that job's conversation (else in the one the others name)."""
    if follow_up is not None:
        chat_url, conversation_id = follow_up.chat_url, follow_up.conversation_id
        follow_up_to = follow_up.id
    compression = "zst" if provider == "chatgpt" else "gz"
    archive, sha = make_archive(
        project.parent / "staging",
        {"README.md": b"# demo\n", "src/app.py": b"print('hi')\n"},
        compression,
    )
    return submit_job(
        JobRequest(
            project_root=project,
            prompt=prompt,
            provider=provider,
            selection=resolve_selection(provider, choice, config).to_json_dict(),
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
    return submit_provider_job(
        project,
        config,
        "chatgpt",
        preset,
        prompt=prompt,
        chat_url=chat_url,
        conversation_id=conversation_id,
        follow_up_to=follow_up_to,
    )


@pytest.fixture
def revocable_seed(seeded: Config, sim: SimulatorThread) -> Iterator[Config]:
    """For tests whose scenario revokes the session: sign the seed in again afterwards."""
    yield seeded
    sign_in_seed(seeded, sim)


async def recollect_in_browser(sim: SimulatorThread, job: Job, config: Config) -> CollectionResult:
    """Reopen the job's conversation in a fresh signed-in browser and recollect its reply
    (through the provider's own capture function, its registry entry's)."""
    async with simulator_page(sim) as page:
        await page.goto(job.chat_url or "")

        async def reopen() -> None:
            await page.goto(job.chat_url or "")

        async def persist(_patch: dict) -> Job:
            return job

        return await recollect(
            page, job, JobStore().paths(job.id), config, reopen=reopen, persist=persist
        )


def kill_worker_mid_answer(job: Job) -> Job:
    """SIGKILL ``job``'s worker once its conversation is adopted and the reply streams; the job
    as its watchdog ended it."""
    from homes import finished

    store = JobStore()
    deadline = time.monotonic() + 60
    running = store.load(job.id)
    while time.monotonic() < deadline and not (
        running.chat_url and running.phase == "awaiting_response"
    ):
        time.sleep(0.1)
        running = store.load(job.id)
    assert running.chat_url, log_of(running)
    time.sleep(1.0)  # streaming
    assert running.worker is not None
    os.kill(running.worker.pid, signal.SIGKILL)
    return finished(job.id, timeout=30)


def revived(job_id: str, timeout_s: float = 90.0) -> Job:
    """The job once a recollection turned it complete (or as it is at ``timeout_s``)."""
    store = JobStore()
    deadline = time.monotonic() + timeout_s
    job = store.load(job_id)
    while time.monotonic() < deadline and job.status != Status.COMPLETE:
        time.sleep(0.2)
        job = store.load(job_id)
    return job


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


# What a Grok or Gemini job shows the same way (each driver module's tests assert through these).
Submit = Callable[..., Job]  # (prompt=..., follow_up=...) -> the admitted job


def assert_follow_up_continues(sim: SimulatorThread, submit: Submit) -> tuple[Job, Job]:
    """A follow-up goes into the first job's conversation and its answer is the second reply;
    both jobs."""
    from homes import complete

    first = complete(submit(prompt="First question"))
    second = complete(submit(prompt="Second question", follow_up=first))
    assert second.conversation_id == first.conversation_id
    conversation = sim.state.conversations[first.conversation_id]
    assert len([t for t in conversation.turns if t.role == "user"]) == 2
    answer = Path(second.response_path).read_text()
    assert "Second question" in answer and "First question" not in answer
    assert second.collection_binding["responseIndex"] == 1
    return first, second


def assert_login_expired(done: Job, provider: str) -> None:
    """A signed-out page failed the job as auth, before send, naming `oraculum auth <site>`."""
    assert done.status == Status.FAILED
    assert done.error_code == "auth_login_required", done.error
    assert f"oraculum auth {provider}" in done.error
    assert done.prompt_send_state.value == "not_sent"


def assert_bound_after_archive(done: Job) -> None:
    """The saved answer is the reply after this job's archive, not an earlier one."""
    answer = Path(done.response_path).read_text()
    assert f"context-{done.id}.tar.gz" in answer, log_of(done)
    assert done.collection_binding["responseIndex"] >= 1
