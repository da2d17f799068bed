"""Readiness on the attached transports: there is no seed to require (the browser is signed in
by hand), and the isolated default still requires it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from homes import write_fast_config
from oraculum.service.preflight import preflight

if TYPE_CHECKING:
    from oraculum.service.doctor import DoctorReport


@pytest.mark.parametrize(
    ("browser", "executable"),
    [
        ({"transport": "managed"}, True),
        (
            {"transport": "relay", "relay": {"enabled": True, "endpoint": "http://127.0.0.1:9"}},
            False,
        ),
    ],
)
def test_attached_transports_need_no_seed(project: Path, browser: dict, executable: bool) -> None:
    write_fast_config({"browser": browser})
    report = preflight(session="s", provider="chatgpt")
    assert report.ready, report.error
    assert report.auth.seed_profile_dir is None
    assert (report.browser_executable is not None) is executable


def test_the_isolated_transport_still_needs_its_seed(project: Path) -> None:
    write_fast_config()
    report = preflight(session="s", provider="chatgpt")
    assert not report.ready
    assert report.error is not None and report.error.code == "auth_seed_profile_missing"


def _checks(result: DoctorReport) -> dict[str, dict]:
    return {c["check"]: c for c in result.to_json()["checks"]}


def test_doctor_checks_the_attached_browser_instead_of_a_seed(project: Path) -> None:
    from oraculum.service.doctor import doctor

    write_fast_config({"browser": {"transport": "managed"}})
    managed = _checks(doctor("chatgpt"))
    assert "seed profile" not in managed
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
