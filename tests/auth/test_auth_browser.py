"""`oraculum auth` in real Chromium against the simulator: import from a user's profile, manual
sign-in, failures that keep the previous seed, `.prev` rollback, and the recovery drill."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sqlite3
import time
from pathlib import Path

import psutil
import pytest
from playwright.async_api import BrowserContext, Page

from homes import finished
from oraculum.browser.profile import SEED_GENERATION_FILE, read_seed_generation
from oraculum.cli import main
from oraculum.core.config import seed_profile_dir
from oraculum.core.errors import OracleError
from oraculum.jobs.model import Job, Status
from oraculum.service.auth import auth
from oraculum.service.caller import Caller
from oraculum.service.preflight import preflight
from oraculum.service.submit import submit
from oraculum.simulator import SimulatorThread

from .conftest import sign_in_source_profile, write_config

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def run_job(prompt: str = "Say hi.") -> Job:
    job = submit(
        prompt, ["README.md"], caller=Caller(session="s1"), provider="chatgpt", preset="instant"
    )
    return finished(job.job["id"])


def seed_cookie_names(seed: Path) -> set[str]:
    db = sqlite3.connect((seed / "Default" / "Cookies").as_uri() + "?mode=ro", uri=True)
    try:
        return {name for (name,) in db.execute("SELECT name FROM cookies")}
    finally:
        db.close()


def test_import_from_a_signed_in_profile_builds_a_seed_a_job_runs_with(
    home: Path, sim: SimulatorThread, source_profile: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(sim)
    seed = seed_profile_dir(config, "chatgpt")
    before = {p: p.stat().st_mtime_ns for p in source_profile.rglob("*") if p.is_file()}

    code = main(["--json", "auth", "--from-browser", str(source_profile)])
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert code == 0, result
    assert result["mode"] == "import" and result["identity"] == "source@example.com"
    assert result["seedProfileDir"] == str(seed)
    assert result["generation"] == read_seed_generation(seed)
    # the policy: the session and a synthesized _account kept, noise and other sites dropped
    assert sorted(result["cookies"]) == ["_account@127.0.0.1", "oraculum-sim-session@127.0.0.1"]
    assert seed_cookie_names(seed) >= {"oraculum-sim-session", "_account"}
    assert not seed_cookie_names(seed) & {"_ga", "theme", "elsewhere"}
    # diagnostics: a private per-run directory, announced on stderr, never holding a value
    diagnostics = Path(result["diagnosticsDir"])
    assert f"Diagnostics: {diagnostics}" in captured.err
    assert diagnostics.stat().st_mode & 0o777 == 0o700
    assert {"auth.log", "auth.url.txt", "auth.aria.txt", "auth.text.txt"} <= {
        p.name for p in diagnostics.iterdir()
    }
    log = (diagnostics / "auth.log").read_text()
    assert "kept: oraculum-sim-session@127.0.0.1" in log and "_ga@127.0.0.1 (noise)" in log
    assert sim.state.sessions and all(token not in log for token in sim.state.sessions)
    # the user's profile was only read
    assert before == {p: p.stat().st_mtime_ns for p in source_profile.rglob("*") if p.is_file()}

    ready = preflight(caller=Caller(session="s1"), provider="chatgpt").to_json()
    assert ready["ready"] is True, ready
    job = run_job()
    assert job.status == Status.COMPLETE, job.error
    assert job.seed_generation == read_seed_generation(seed)


def test_manual_sign_in_completes_the_login_form_in_the_auth_browser(
    home: Path, sim: SimulatorThread
) -> None:
    config = write_config(sim)
    seen: list[str] = []

    async def person(context: BrowserContext, page: Page) -> None:
        # What someone at the window does: read the form, type, press Continue.
        seen.append(page.url)
        await page.get_by_label("Email address").fill("manual@example.com")
        await page.get_by_label("Password").fill("correct horse")
        await page.get_by_role("button", name="Continue", exact=True).click()

    result = auth("chatgpt", manual=True, watch=person)
    assert seen == [sim.sign_in_url]  # the browser opened on the login page
    assert result.mode == "manual" and result.sign_in is not None
    assert result.sign_in.identity == "manual@example.com" and result.sign_in.source is None
    seed = seed_profile_dir(config, "chatgpt")
    assert "oraculum-sim-session" in seed_cookie_names(seed)
    assert (seed / SEED_GENERATION_FILE).is_file()
    assert preflight(caller=Caller(session="s1"), provider="chatgpt").ready is True


def test_manual_sign_in_that_never_happens_times_out_and_keeps_nothing(
    home: Path, sim: SimulatorThread
) -> None:
    config = write_config(sim, bootstrapTimeoutMs=2000)
    with pytest.raises(OracleError) as failed:
        auth("chatgpt", manual=True)
    assert failed.value.code == "auth_timeout"
    assert "login_required" in failed.value.message
    diagnostics = Path(failed.value.details["diagnosticsDir"])
    assert "/auth/login" in (diagnostics / "auth.url.txt").read_text()
    assert "Email address" in (diagnostics / "auth.aria.txt").read_text()
    seed = seed_profile_dir(config, "chatgpt")
    assert not seed.exists() and not list(seed.parent.glob("*.staging-*"))


def test_failed_verification_keeps_the_seed_and_prev_restores_the_one_before(
    home: Path, sim: SimulatorThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(sim)
    seed = seed_profile_dir(config, "chatgpt")
    source = tmp_path / "revoked-user"
    asyncio.run(sign_in_source_profile(source, sim.url, "revoked@example.com"))
    first = auth("chatgpt", from_browser=str(source)).generation
    second = auth("chatgpt", from_browser=str(source)).generation
    assert read_seed_generation(seed) == second
    assert read_seed_generation(seed.with_name(seed.name + ".prev")) == first

    # The user's browser session ends server-side: its cookies no longer sign anyone in.
    for token, email in list(sim.state.sessions.items()):
        if email == "revoked@example.com":
            sim.state.sessions.pop(token)
    with pytest.raises(OracleError) as failed:
        auth("chatgpt", from_browser=str(source))
    assert failed.value.code == "auth_login_required"
    assert read_seed_generation(seed) == second  # untouched
    assert read_seed_generation(seed.with_name(seed.name + ".prev")) == first
    assert not list(seed.parent.glob("*.staging-*"))

    code = main(["--json", "auth", "--rollback"])
    rolled = json.loads(capsys.readouterr().out)
    assert code == 0 and rolled["generation"] == first
    assert read_seed_generation(seed) == first
    assert read_seed_generation(seed.with_name(seed.name + ".prev")) == second


def test_a_challenge_fails_as_a_challenge_and_keeps_the_seed(
    home: Path, sim: SimulatorThread, source_profile: Path
) -> None:
    config = write_config(sim)
    seed = seed_profile_dir(config, "chatgpt")
    generation = auth("chatgpt", from_browser=str(source_profile)).generation
    write_config(sim, chat_url=sim.chat_url(scenario="challenge", challenge_loads=0))
    with pytest.raises(OracleError) as failed:
        auth("chatgpt", from_browser=str(source_profile))
    assert failed.value.code == "auth_challenge"
    assert "--manual" in (failed.value.suggested_next_step or "")  # headless: no window to leave
    assert read_seed_generation(seed) == generation
    assert not list(seed.parent.glob("*.staging-*"))


def test_keyring_password_variables_never_reach_the_browser(
    home: Path, sim: SimulatorThread, source_profile: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(sim)
    monkeypatch.setenv("CHROME_SAFE_STORAGE_PASSWORD", "hunter2")
    monkeypatch.setenv("ORACULUM_KEYRING_PASSWORD", "hunter3")
    environments: list[dict[str, str]] = []

    async def inspect(context: BrowserContext, page: Page) -> None:
        for process in psutil.process_iter(["cmdline"]):
            cmdline = " ".join(process.info["cmdline"] or [])
            if ".staging-" in cmdline and "--user-data-dir" in cmdline:
                with contextlib.suppress(psutil.Error):
                    environments.append(process.environ())

    auth("chatgpt", from_browser=str(source_profile), watch=inspect)
    assert environments, "the auth browser's processes were not found"
    for environment in environments:
        assert "CHROME_SAFE_STORAGE_PASSWORD" not in environment
        assert "ORACULUM_KEYRING_PASSWORD" not in environment
    assert "CHROME_SAFE_STORAGE_PASSWORD" not in os.environ


def test_recovery_drill_empty_seed_fails_as_auth_then_auth_repairs_it(
    home: Path, sim: SimulatorThread, source_profile: Path
) -> None:
    """Reference §12.1: an empty seed fails fast as an auth problem; `oraculum auth` repairs it;
    the next job succeeds."""
    config = write_config(sim)
    seed = seed_profile_dir(config, "chatgpt")
    seed.mkdir(mode=0o700, parents=True)

    blocked = preflight(caller=Caller(session="s1"), provider="chatgpt").to_json()
    assert blocked["error"]["code"] == "auth_seed_profile_unauthenticated"
    assert blocked["auth"] == {
        "ready": False,
        "seedProfileDir": str(seed),
        "problem": "auth_seed_profile_unauthenticated",
    }

    started = time.monotonic()
    failed = run_job()
    assert failed.status == Status.FAILED
    assert failed.error_code == "auth_login_required", failed.error
    assert "oraculum auth" in (failed.error or "")
    assert time.monotonic() - started < 30  # an auth failure, not a timeout

    repaired = auth("chatgpt", from_browser=str(source_profile))
    assert repaired.sign_in is not None and repaired.sign_in.identity == "source@example.com"
    assert preflight(caller=Caller(session="s1"), provider="chatgpt").ready is True
    job = run_job("And now?")
    assert job.status == Status.COMPLETE, job.error
    assert Path(job.response_path).read_text().strip()
    assert job.seed_generation == repaired.generation
    # the empty seed was kept aside as .prev, the user's profile never written
    assert seed.with_name(seed.name + ".prev").is_dir()
