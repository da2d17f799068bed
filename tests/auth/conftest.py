"""A simulator, an oraculum home pointing at it, and a "user's own" Chromium profile signed in
to it — its session cookie written by Chromium itself (basic password storage, `v10`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import BrowserContext, Page, async_playwright

from homes import SIMULATOR_WORKER, write_global_config
from oraculum.auth.simulator import sign_in_with_form
from oraculum.browser.chromium import launch_args, resolve_executable
from oraculum.cli import main
from oraculum.core.config import Config, seed_profile_dir
from oraculum.simulator import SimulatorThread

FAST_SIM = {"think_ms": 100, "token_ms": 2, "hydrate_ms": 50, "upload_ms": 80}


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorThread]:
    with SimulatorThread(**FAST_SIM) as running:
        yield running


# Signing in is about cookie stores on disk: `oraculum auth` here runs the full `chromium`, as
# it does for a person (the headless shell, the other tests' browser, keeps fewer cookies).
def full_chromium() -> dict[str, str]:
    return {"executablePath": str(resolve_executable())}


def write_config(sim: SimulatorThread, chat_url: str | None = None, **auth: Any) -> Config:
    return write_global_config(
        {
            "browser": {
                "chatUrl": chat_url or sim.url + "/",
                "authUrl": sim.sign_in_url,
                **full_chromium(),
            },
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


# Grok's and Gemini's sign-in: their look-alikes, their configs and the person at the window.


def site_sim(provider: str) -> Any:
    """A module's ``<provider>_sim`` fixture: the site's look-alike (bind it by that name)."""

    @pytest.fixture(scope="module", name=f"{provider}_sim")
    def running_site() -> Iterator[SimulatorThread]:
        with SimulatorThread(provider=provider, **FAST_SIM) as running:
            yield running

    return running_site


def write_site_config(url_key: str, sim: SimulatorThread, **knobs: Any) -> Config:
    """The global config for `oraculum auth <site>` against ``sim`` (the ``url_key`` setting,
    its chat URL carrying ``knobs``)."""
    return write_global_config(
        {
            "browser": {url_key: sim.chat_url(**knobs), **full_chromium()},
            "auth": {"pollMs": 200, "bootstrapTimeoutMs": 20000},
            "worker": SIMULATOR_WORKER,
        }
    )


async def sign_in_site_profile(
    profile: Path, sim: SimulatorThread, email: str, provider: str
) -> None:
    """A person's Chromium signed in to ``provider``'s look-alike (Chromium stores its session
    cookie), then quit."""
    async with users_chromium(profile) as context:
        await sign_in_with_form(context, sim.sign_in_url, email, provider=provider)


def site_source(provider: str, email: str) -> Any:
    """A module's ``<provider>_source`` fixture: a person's Chromium signed in to the site's
    look-alike as ``email``, then quit (bind it by that name)."""

    @pytest.fixture(scope="module", name=f"{provider}_source")
    def signed_in_source(tmp_path_factory: pytest.TempPathFactory, request: Any) -> Path:
        sim = request.getfixturevalue(f"{provider}_sim")
        profile = tmp_path_factory.mktemp(f"{provider}-user-chromium") / "chromium"
        asyncio.run(sign_in_site_profile(profile, sim, email, provider))
        return profile

    return signed_in_source


def imported(
    provider: str, config: Config, source: Path, capsys: pytest.CaptureFixture[str]
) -> dict[str, Any]:
    """`oraculum --json auth <provider> --from-browser <source>`: its result, which must say it
    imported into the site's own seed."""
    seed = seed_profile_dir(config, provider)
    code = main(["--json", "auth", provider, "--from-browser", str(source)])
    result: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert code == 0, result
    assert result["provider"] == provider and result["mode"] == "import"
    assert result["seedProfileDir"] == str(seed)
    return result


def person_signing_in(
    seen: list[str], email: str
) -> Callable[[BrowserContext, Page], Awaitable[None]]:
    """Someone at the auth window of a site that opens signed out: they note where it opened
    (``seen``), follow Sign in and use the form as ``email``."""

    async def person(context: BrowserContext, page: Page) -> None:
        seen.append(page.url)
        await page.get_by_role("link", name="Sign in", exact=True).click()
        await page.get_by_label("Email address").fill(email)
        await page.get_by_role("button", name="Continue", exact=True).click()

    return person
