"""`oraculum browser start|status|login|stop` as real subprocesses on a real keeper Chromium."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from oraculum.browser import keeper
from oraculum.core.errors import ExitCode

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ORACULUM = Path(sys.executable).parent / "oraculum"


def cli(*args: str) -> tuple[int, Any]:
    done = subprocess.run(
        [str(ORACULUM), "--json", "browser", *args],
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done.returncode, json.loads(done.stdout)


@pytest.fixture
def home(oraculum_home: Path) -> Iterator[Path]:
    yield oraculum_home
    keeper.stop_keeper()


def test_start_status_login_stop(home: Path) -> None:
    code, status = cli("status")
    assert code == 0 and status["running"] is False and status["transport"] == "isolated"

    code, started = cli("start", "--headless")
    assert code == 0, started
    assert started["started"] is True and started["running"] and started["proven"]
    assert started["headed"] is False and started["tabs"] == 1  # the marker tab
    assert keeper.record_path().stat().st_mode & 0o777 == 0o600
    pid = started["pid"]

    code, again = cli("start", "--headless")
    assert code == 0 and again["started"] is False and again["pid"] == pid

    # Nobody can sign in in a headless browser: login says so instead of opening a tab.
    code, refused = cli("login")
    assert code == ExitCode.NOT_READY and refused["error"]["code"] == "auth_unavailable"

    code, stopped = cli("stop")
    assert code == 0 and stopped == {"stopped": True}
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    code, status = cli("status")
    assert code == 0 and status["running"] is False
    code, stopped = cli("stop")
    assert code == 0 and stopped == {"stopped": False}


def test_status_on_the_relay_transport_says_whether_the_endpoint_proves_itself(home) -> None:
    from homes import write_global_config

    relay = {"enabled": True, "endpoint": "http://127.0.0.1:1"}
    write_global_config({"browser": {"transport": "relay", "relay": relay}})
    code, status = cli("status")
    assert code == 0 and status["transport"] == "relay"
    assert status["relay"]["proven"] is False
    assert status["relay"]["problem"].startswith("[relay_endpoint_unproven]")
