"""The CLI skeleton: version, JSON mode everywhere, error shape and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from oraculum import __version__
from oraculum.cli import main


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code = main([*args])
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = run_json(capsys, "--json", "--version")
    assert code == 0 and doc == {"version": __version__}


@pytest.mark.parametrize("placement", ["before", "after"])
def test_json_flag_anywhere(placement: str, capsys, oraculum_home: Path) -> None:
    args = ["--json", "status"] if placement == "before" else ["status", "--json"]
    code, doc = run_json(capsys, *args)
    assert code == 0
    assert doc["jobs"] == []


@pytest.mark.parametrize("bad", ["../x", "/etc", "a" * 500, "jöb"])
def test_bad_job_id_error_shape(bad: str, capsys, oraculum_home: Path) -> None:
    code, doc = run_json(capsys, "--json", "status", bad)
    assert code == 2
    assert doc["error"]["code"] == "invalid_job_id"
    assert doc["error"]["retryable"] is False
    assert "suggestedNextStep" in doc["error"]


def test_unknown_job_is_not_found(capsys, oraculum_home: Path) -> None:
    code, doc = run_json(capsys, "--json", "status", "0000000000000")
    assert code == 3
    assert doc["error"]["code"] == "job_not_found"


def test_usage_error_in_json_mode(capsys, oraculum_home: Path) -> None:
    code, doc = run_json(capsys, "--json", "no-such-command")
    assert code == 2
    assert doc["error"]["code"] == "invalid_argument"


def test_human_error_format(capsys, oraculum_home: Path) -> None:
    code = main(["status", "../x"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error[invalid_job_id]: ")
    assert "next step: Run `oraculum status`" in err


def test_console_script_runs_as_a_real_process(oraculum_home: Path) -> None:
    exe = Path(sys.executable).with_name("oraculum")
    done = subprocess.run(
        [str(exe), "status", "--json"], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["jobs"] == []


@pytest.mark.browser
def test_selfcheck_launches_chromium(capsys, oraculum_home: Path) -> None:
    code, doc = run_json(capsys, "--json", "selfcheck")
    assert code == 0, doc
    assert doc["ok"] is True
    assert {c["check"] for c in doc["checks"]} >= {"chromium", "chromium launch", "jobs dir"}


@pytest.mark.parametrize("args", [["-h"], ["submit", "-h"], ["status", "-h"], ["schedule", "-h"]])
def test_dash_h_is_help_like_dash_dash_help(args: list[str]) -> None:
    """Issue 38 §11: `-h` works wherever `--help` does (a real process: the fast start too)."""
    exe = Path(sys.executable).with_name("oraculum")
    short = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=60)
    long = subprocess.run(
        [str(exe), *args[:-1], "--help"], capture_output=True, text=True, timeout=60
    )
    assert short.returncode == 0, short.stderr
    assert short.stdout.startswith("Usage: oraculum") and short.stdout == long.stdout
