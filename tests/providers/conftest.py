"""A signed-in seed profile against a running simulator, and jobs that use it."""

from __future__ import annotations

import asyncio
import hashlib
import io
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zstandard

from homes import SIMULATOR_WORKER, write_global_config
from oraculum.auth.simulator import seed_simulator_profile
from oraculum.browser.session import LaunchOptions
from oraculum.core.config import Config, seed_profile_dir
from oraculum.core.paths import private_home_environment
from oraculum.core.presets import resolve_selection
from oraculum.jobs.admission import JobRequest, submit_job
from oraculum.jobs.model import Job
from oraculum.simulator import SimulatorThread

FAST_SIM = {"think_ms": 150, "token_ms": 2, "hydrate_ms": 80, "upload_ms": 120}


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorThread]:
    with SimulatorThread(**FAST_SIM) as running:
        yield running


def write_config(sim: SimulatorThread, **chat_knobs: Any) -> Config:
    return write_global_config(
        {
            "browser": {
                "chatUrl": sim.chat_url(**chat_knobs) if chat_knobs else sim.url + "/",
                "authUrl": sim.sign_in_url,
                "maxConcurrentJobs": 2,
            },
            "worker": SIMULATOR_WORKER,
            "queue": {"maxQueuedPerSlot": 5},
        }
    )


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
