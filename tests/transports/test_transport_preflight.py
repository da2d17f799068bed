"""Readiness on the attached transports: there is no seed to require (the browser is signed in
by hand), and the isolated default still requires it."""

from __future__ import annotations

from pathlib import Path

import pytest

from homes import write_fast_config
from oraculum.service.preflight import preflight


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
