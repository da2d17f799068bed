"""A simulator, an oraculum home pointing at it, and a "user's own" Chromium profile signed in
to it — its session cookie written by Chromium itself (basic password storage, `v10`)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import BrowserContext, async_playwright

from homes import SIMULATOR_WORKER, write_global_config
from oraculum.browser.chromium import launch_args, resolve_executable
from oraculum.core.config import Config
from oraculum.simulator import SimulatorThread

FAST_SIM = {"think_ms": 100, "token_ms": 2, "hydrate_ms": 50, "upload_ms": 80}


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorThread]:
    with SimulatorThread(**FAST_SIM) as running:
        yield running


def write_config(sim: SimulatorThread, chat_url: str | None = None, **auth: Any) -> Config:
    return write_global_config(
        {
            "browser": {"chatUrl": chat_url or sim.url + "/", "authUrl": sim.sign_in_url},
            "auth": {"pollMs": 200, "bootstrapTimeoutMs": 20000, **auth},
            "worker": SIMULATOR_WORKER,
        }
    )


@pytest.fixture
def home(oraculum_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An oraculum home, a HOME with no browser profiles, and a project directory as cwd."""
    user_home = tmp_path / "user-home"
    user_home.mkdir()
    monkeypatch.setenv("HOME", str(user_home))
    project = tmp_path / "project"
    project.mkdir()
    (project / "README.md").write_text("# demo\n")
    monkeypatch.chdir(project)
    monkeypatch.setenv("ORACULUM_AUTH_HEADLESS", "1")
    return oraculum_home


@contextlib.asynccontextmanager
async def users_chromium(profile: Path) -> AsyncIterator[BrowserContext]:
    """A person's own Chromium on ``profile`` (basic password storage, no automation flag);
    it quits after the block, which flushes its cookies to disk."""
    async with async_playwright() as playwright:
        context = await playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(resolve_executable()),
            headless=True,
            args=launch_args(["--password-store=basic"]),
            ignore_default_args=["--enable-automation"],
        )
        try:
            yield context
        finally:
            await context.close()


async def sign_in_source_profile(
    profile: Path, base_url: str, email: str, extra_cookies: list[dict] | None = None
) -> None:
    """A person's Chromium: signs in through the login form, then quits (flushing cookies)."""
    async with users_chromium(profile) as context:
        page = context.pages[0] if context.pages else await context.new_page()
        await page.goto(base_url + "/auth/login")
        await page.get_by_label("Email address").fill(email)
        async with page.expect_navigation():
            await page.get_by_role("button", name="Continue", exact=True).click()
        if extra_cookies:
            await context.add_cookies(extra_cookies)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def source_profile(tmp_path_factory: pytest.TempPathFactory, sim: SimulatorThread) -> Path:
    """A user-data directory signed in to the simulator as source@example.com, with noise."""
    profile = tmp_path_factory.mktemp("user-chromium") / "chromium"
    host = sim.url.split("//", 1)[1].split(":")[0]
    noise = [
        {"name": "_ga", "value": "GA1.1.1", "domain": host, "path": "/"},
        {"name": "theme", "value": "dark", "domain": host, "path": "/"},
        {"name": "elsewhere", "value": "x", "domain": "example.org", "path": "/"},
    ]
    asyncio.run(sign_in_source_profile(profile, sim.url, "source@example.com", noise))
    return profile
