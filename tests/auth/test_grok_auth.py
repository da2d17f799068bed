"""`oraculum auth grok` in real Chromium against the Grok simulator: the import and manual flows
are verified by the Grok page driver (the page must classify as ready), not by a cookie alone."""

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
from oraculum.core.errors import OracleError
from oraculum.service.auth import auth
from oraculum.service.caller import Caller
from oraculum.service.preflight import preflight
from oraculum.simulator import SimulatorThread

from .conftest import FAST_SIM, users_chromium

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def grok_sim() -> Iterator[SimulatorThread]:
    with SimulatorThread(provider="grok", **FAST_SIM) as running:
        yield running


def write_grok_config(sim: SimulatorThread, **knobs: Any) -> Config:
    return write_global_config(
        {
            "browser": {"grokUrl": sim.chat_url(**knobs) if knobs else sim.url + "/"},
            "auth": {"pollMs": 200, "bootstrapTimeoutMs": 20000},
            "worker": SIMULATOR_WORKER,
        }
    )


async def sign_in_grok_profile(profile: Path, sim: SimulatorThread, email: str) -> None:
    """A person's Chromium signed in to the Grok look-alike (Chromium stores `sso`), then quit."""
    async with users_chromium(profile) as context:
        await sign_in_with_form(context, sim.sign_in_url, email, provider="grok")


@pytest.fixture(scope="module")
def grok_source(tmp_path_factory: pytest.TempPathFactory, grok_sim: SimulatorThread) -> Path:
    profile = tmp_path_factory.mktemp("grok-user-chromium") / "chromium"
    asyncio.run(sign_in_grok_profile(profile, grok_sim, "grok-source@example.com"))
    return profile


def test_auth_grok_imports_the_sso_cookie_and_the_page_driver_sees_a_ready_composer(
    home: Path,
    grok_sim: SimulatorThread,
    grok_source: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = write_grok_config(grok_sim)
    seed = seed_profile_dir(config, "grok")
    code = main(["--json", "auth", "grok", "--from-browser", str(grok_source)])
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert code == 0, result
    assert result["provider"] == "grok" and result["mode"] == "import"
    assert result["seedProfileDir"] == str(seed)
    assert result["generation"] == read_seed_generation(seed)
    assert any(label.startswith("sso@") for label in result["cookies"])
    # the Grok page classifier, not a cookie check, said ready
    assert "The Grok composer is ready." in result["message"]
    log = (Path(result["diagnosticsDir"]) / "auth.log").read_text()
    assert "page state: ready" in log
    assert preflight(caller=Caller(session="s1"), provider="grok").ready is True
    # the ChatGPT seed is a different profile and untouched
    assert not seed_profile_dir(config, "chatgpt").exists()


def test_auth_grok_refuses_a_revoked_session_whose_sso_cookie_still_exists(
    home: Path, grok_sim: SimulatorThread, tmp_path: Path
) -> None:
    """The defect: a cookie-only check accepts an `sso` cookie the site no longer honours; the
    page shows Sign in, so the page driver classifies it signed out."""
    config = write_grok_config(grok_sim)
    source = tmp_path / "revoked-grok-user"
    asyncio.run(sign_in_grok_profile(source, grok_sim, "grok-revoked@example.com"))
    for token, email in list(grok_sim.state.sessions.items()):
        if email == "grok-revoked@example.com":
            grok_sim.state.sessions.pop(token)
    with pytest.raises(OracleError) as failed:
        auth("grok", from_browser=str(source))
    assert failed.value.code == "auth_login_required"
    assert "Sign in" in failed.value.message
    assert "oraculum auth grok --manual" in (failed.value.suggested_next_step or "")
    seed = seed_profile_dir(config, "grok")
    assert not seed.exists() and not list(seed.parent.glob("*.staging-*"))


def test_auth_grok_manual_sign_in_through_the_sign_in_link(
    home: Path, grok_sim: SimulatorThread
) -> None:
    config = write_grok_config(grok_sim)
    seen: list[str] = []

    async def person(context: BrowserContext, page: Page) -> None:
        # Someone at the window: Grok opens signed out; they follow Sign in and use the form.
        seen.append(page.url)
        await page.get_by_role("link", name="Sign in", exact=True).click()
        await page.get_by_label("Email address").fill("grok-manual@example.com")
        await page.get_by_role("button", name="Continue", exact=True).click()

    result = auth("grok", manual=True, watch=person)
    assert seen == [grok_sim.url + "/"]  # Grok signs in from its chat page
    assert result.mode == "manual" and result.provider == "grok"
    assert "The Grok composer is ready." in result.message
    assert "grok-manual@example.com" in grok_sim.state.sessions.values()
    seed = seed_profile_dir(config, "grok")
    assert read_seed_generation(seed) == result.generation
    assert preflight(caller=Caller(session="s1"), provider="grok").ready is True


def test_auth_grok_challenge_fails_as_a_challenge_and_keeps_the_seed(
    home: Path, grok_sim: SimulatorThread, grok_source: Path
) -> None:
    config = write_grok_config(grok_sim)
    seed = seed_profile_dir(config, "grok")
    generation = auth("grok", from_browser=str(grok_source)).generation
    write_grok_config(grok_sim, scenario="challenge", challenge_loads=0)
    with pytest.raises(OracleError) as failed:
        auth("grok", from_browser=str(grok_source))
    assert failed.value.code == "auth_challenge"
    assert "Grok" in failed.value.message
    # headless: no window to leave open, so the way out is Grok's own manual sign-in
    assert "`oraculum auth grok --manual`" in (failed.value.suggested_next_step or "")
    assert read_seed_generation(seed) == generation
    assert not list(seed.parent.glob("*.staging-*"))


def test_auth_grok_with_nothing_to_import_and_no_display_names_grok_s_own_command(
    home: Path, grok_sim: SimulatorThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_grok_config(grok_sim)
    for name in ("ORACULUM_AUTH_HEADLESS", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(OracleError) as refused:
        auth("grok")
    assert refused.value.code == "auth_unavailable"
    step = refused.value.suggested_next_step or ""
    assert "`oraculum auth grok --from-browser PATH`" in step
    assert "`oraculum auth grok --manual`" in step
