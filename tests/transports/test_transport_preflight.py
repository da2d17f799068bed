"""Readiness on the attached transports: there is no seed to require (the browser is signed in
by hand), and the isolated default still requires it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from homes import write_cookie_store, write_fast_config
from oraculum.browser.keeper import profile_dir
from oraculum.service.caller import Caller
from oraculum.service.preflight import preflight

if TYPE_CHECKING:
    from oraculum.service.doctor import DoctorReport


def test_the_managed_transport_needs_no_seed_but_a_signed_in_browser(project: Path) -> None:
    write_fast_config({"browser": {"transport": "managed"}})
    report = preflight(caller=Caller(session="s"), provider="chatgpt")
    assert not report.ready  # issue 38 §8: never ready while a job could not sign in
    assert report.error is not None and report.error.code == "managed_browser_signed_out"
    assert "oraculum browser login" in (report.error.suggested_next_step or "")
    write_cookie_store(profile_dir(), ("__Secure-next-auth.session-token", ".chatgpt.com", 0))
    report = preflight(caller=Caller(session="s"), provider="chatgpt")
    assert report.ready, report.error
    assert report.auth.seed_profile_dir is None
    assert report.browser_executable is not None
    write_fast_config({"browser": {"transport": "managed", "managed": {"startOnDemand": False}}})
    report = preflight(
        caller=Caller(session="s"), provider="chatgpt"
    )  # signed in, but nothing would start it
    assert report.error is not None and report.error.code == "managed_browser_not_running"


@pytest.mark.browser
def test_the_relay_needs_no_seed_and_is_ready_only_while_its_chrome_answers(
    project: Path, tmp_path: Path
) -> None:
    """Issue 38 §8: preflight never says ready for a relay that cannot work."""
    from .test_relay_jobs import users_chrome

    with users_chrome(tmp_path / "chrome") as (_proc, url):
        write_fast_config(
            {"browser": {"transport": "relay", "relay": {"enabled": True, "endpoint": url}}}
        )
        report = preflight(caller=Caller(session="s"), provider="chatgpt")
        assert report.ready, report.error
        assert report.auth.seed_profile_dir is None and report.browser_executable is None
    report = preflight(
        caller=Caller(session="s"), provider="chatgpt"
    )  # the same endpoint, Chrome gone
    assert not report.ready
    assert report.error is not None and report.error.code == "relay_endpoint_unproven"


def test_a_relay_nobody_opted_into_is_not_ready(project: Path) -> None:
    write_fast_config({"browser": {"transport": "relay"}})
    report = preflight(caller=Caller(session="s"), provider="chatgpt")
    assert not report.ready
    assert report.error is not None and report.error.code == "relay_not_enabled"
    write_fast_config(
        {
            "browser": {
                "transport": "relay",
                "relay": {"enabled": True, "endpoint": "http://127.0.0.1:9"},
            }
        }
    )
    report = preflight(caller=Caller(session="s"), provider="chatgpt")
    assert not report.ready
    assert report.error is not None and report.error.code == "relay_endpoint_unproven"


def test_config_check_refuses_a_relay_nobody_opted_into(project: Path) -> None:
    import json
    import subprocess
    import sys

    write_fast_config({"browser": {"transport": "relay"}})
    done = subprocess.run(
        [str(Path(sys.executable).with_name("oraculum")), "--json", "config", "check"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0, done.stdout
    assert json.loads(done.stdout)["error"]["code"] == "relay_not_enabled"


def test_the_isolated_transport_still_needs_its_seed(project: Path) -> None:
    write_fast_config()
    report = preflight(caller=Caller(session="s"), provider="chatgpt")
    assert not report.ready
    assert report.error is not None and report.error.code == "auth_seed_profile_missing"


def _checks(result: DoctorReport) -> dict[str, dict]:
    return {c["check"]: c for c in result.to_json()["checks"]}


def test_doctor_checks_the_attached_browser_instead_of_a_seed(project: Path) -> None:
    from oraculum.service.doctor import doctor

    write_fast_config({"browser": {"transport": "managed"}})
    managed = _checks(doctor("chatgpt"))
    assert "seed profile" not in managed
    assert managed["managed browser"]["code"] == "managed_browser_signed_out"
    write_cookie_store(profile_dir(), ("__Secure-next-auth.session-token", ".chatgpt.com", 0))
    managed = _checks(doctor("chatgpt"))
    assert managed["managed browser"]["status"] == "warn"  # not running: a job starts it

    write_fast_config({"browser": {"transport": "managed", "managed": {"startOnDemand": False}}})
    assert _checks(doctor("chatgpt"))["managed browser"]["code"] == "managed_browser_not_running"

    relay = {"enabled": True, "endpoint": "http://127.0.0.1:1"}
    write_fast_config({"browser": {"transport": "relay", "relay": relay}})
    result = doctor("chatgpt")
    checks = _checks(result)
    assert "seed profile" not in checks
    assert checks["relay browser"]["status"] == "fail"
    assert checks["relay browser"]["code"] == "relay_endpoint_unproven"
    assert result.ok is False
