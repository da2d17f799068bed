"""`oraculum auth grok` in real Chromium against the Grok simulator: the import and manual flows
are verified by the Grok page driver (the page must classify as ready), not by a cookie alone."""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path

import pytest

from oraculum.browser.profile import read_seed_generation
from oraculum.core.config import seed_profile_dir
from oraculum.core.errors import OracleError
from oraculum.service.auth import auth
from oraculum.service.caller import Caller
from oraculum.service.preflight import preflight
from oraculum.simulator import SimulatorThread

from .conftest import (
    imported,
    person_signing_in,
    sign_in_site_profile,
    site_sim,
    site_source,
    write_site_config,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


grok_sim = site_sim("grok")
write_grok_config = partial(write_site_config, "grokUrl")

grok_source = site_source("grok", "grok-source@example.com")


def test_auth_grok_imports_the_sso_cookie_and_the_page_driver_sees_a_ready_composer(
    home: Path,
    grok_sim: SimulatorThread,
    grok_source: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = write_grok_config(grok_sim)
    seed = seed_profile_dir(config, "grok")
    result = imported("grok", config, grok_source, capsys)
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
    asyncio.run(sign_in_site_profile(source, grok_sim, "grok-revoked@example.com", "grok"))
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
    # Someone at the window: Grok opens signed out; they follow Sign in and use the form.
    result = auth("grok", manual=True, watch=person_signing_in(seen, "grok-manual@example.com"))
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
