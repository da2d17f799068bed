"""`oraculum auth gemini` in real Chromium against the Gemini simulator: import and manual sign-in
are verified by the Gemini page driver (signed in beside a working composer), not by a cookie."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import BrowserContext, Page

from homes import SIMULATOR_WORKER, write_global_config
from oraculum.auth.simulator import sign_in_with_form
from oraculum.browser.profile import read_seed_generation
from oraculum.cli import main
from oraculum.core.config import Config, seed_profile_dir
from oraculum.service.auth import auth
from oraculum.service.caller import Caller
from oraculum.service.preflight import preflight
from oraculum.simulator import SimulatorThread

from .conftest import FAST_SIM, users_chromium

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def gemini_sim() -> Iterator[SimulatorThread]:
    with SimulatorThread(provider="gemini", **FAST_SIM) as running:
        yield running


def write_gemini_config(sim: SimulatorThread, **knobs: Any) -> Config:
    return write_global_config(
        {
            "browser": {"geminiUrl": sim.chat_url(**knobs)},
            "auth": {"pollMs": 200, "bootstrapTimeoutMs": 20000},
            "worker": SIMULATOR_WORKER,
        }
    )


@pytest.fixture(scope="module")
def gemini_source(tmp_path_factory: pytest.TempPathFactory, gemini_sim: SimulatorThread) -> Path:
    """A person's Chromium signed in to the Gemini look-alike, then quit."""
    profile = tmp_path_factory.mktemp("gemini-user-chromium") / "chromium"

    async def sign_in() -> None:
        async with users_chromium(profile) as context:
            await sign_in_with_form(
                context, gemini_sim.sign_in_url, "gemini-source@example.com", provider="gemini"
            )

    asyncio.run(sign_in())
    return profile


def test_auth_gemini_imports_the_1psid_cookie_and_the_page_check_sees_an_account(
    home: Path,
    gemini_sim: SimulatorThread,
    gemini_source: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = write_gemini_config(gemini_sim)
    seed = seed_profile_dir(config, "gemini")
    code = main(["--json", "auth", "gemini", "--from-browser", str(gemini_source)])
    result = json.loads(capsys.readouterr().out)
    assert code == 0, result
    assert result["provider"] == "gemini" and result["mode"] == "import"
    assert result["seedProfileDir"] == str(seed) and seed.name.endswith("-gemini")
    assert any(label.startswith("__Secure-1PSID@") for label in result["cookies"])
    assert "signed in" in result["message"]
    assert preflight(caller=Caller(session="s1"), provider="gemini").ready is True


def test_auth_gemini_refuses_a_signed_out_page_with_a_composer(
    home: Path,
    gemini_sim: SimulatorThread,
    gemini_source: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The revoked session leaves a working composer and a Sign in link: not signed in."""
    write_gemini_config(gemini_sim, scenario="login_expired")
    code = main(["--json", "auth", "gemini", "--from-browser", str(gemini_source)])
    result = json.loads(capsys.readouterr().out)
    assert code != 0, result
    assert result["error"]["code"] == "auth_login_required", result


def test_auth_gemini_manual_sign_in_from_the_signed_out_app(
    home: Path, gemini_sim: SimulatorThread
) -> None:
    config = write_gemini_config(gemini_sim)
    seen: list[str] = []

    async def person(context: BrowserContext, page: Page) -> None:
        # Someone at the window: Gemini opens signed out (a composer, and Sign in).
        seen.append(page.url)
        await page.get_by_role("link", name="Sign in", exact=True).click()
        await page.get_by_label("Email address").fill("gemini-manual@example.com")
        await page.get_by_role("button", name="Continue", exact=True).click()

    result = auth("gemini", manual=True, watch=person)
    assert seen == [gemini_sim.url + "/app"]  # Gemini signs in from its app page
    assert result.mode == "manual" and result.provider == "gemini"
    assert "signed in" in result.message
    assert "gemini-manual@example.com" in gemini_sim.state.sessions.values()
    assert read_seed_generation(seed_profile_dir(config, "gemini")) == result.generation
