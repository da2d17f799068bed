"""`oraculum auth gemini` in real Chromium against the Gemini simulator: import and manual sign-in
are verified by the Gemini page driver (signed in beside a working composer), not by a cookie."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest

from oraculum.browser.profile import read_seed_generation
from oraculum.cli import main
from oraculum.core.config import seed_profile_dir
from oraculum.service.auth import auth
from oraculum.service.caller import Caller
from oraculum.service.preflight import preflight
from oraculum.simulator import SimulatorThread

from .conftest import (
    imported,
    person_signing_in,
    site_sim,
    site_source,
    write_site_config,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


gemini_sim = site_sim("gemini")
write_gemini_config = partial(write_site_config, "geminiUrl")

gemini_source = site_source("gemini", "gemini-source@example.com")


def test_auth_gemini_imports_the_1psid_cookie_and_the_page_check_sees_an_account(
    home: Path,
    gemini_sim: SimulatorThread,
    gemini_source: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = write_gemini_config(gemini_sim)
    seed = seed_profile_dir(config, "gemini")
    result = imported("gemini", config, gemini_source, capsys)
    assert seed.name.endswith("-gemini")
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
    # Someone at the window: Gemini opens signed out (a composer, and Sign in).
    person = person_signing_in(seen, "gemini-manual@example.com")
    result = auth("gemini", manual=True, watch=person)
    assert seen == [gemini_sim.url + "/app"]  # Gemini signs in from its app page
    assert result.mode == "manual" and result.provider == "gemini"
    assert "signed in" in result.message
    assert "gemini-manual@example.com" in gemini_sim.state.sessions.values()
    assert read_seed_generation(seed_profile_dir(config, "gemini")) == result.generation
