"""`oraculum config show|check` and `oraculum presets`, in-process and as a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from homes import private_home  # noqa: F401 (the fixture: home)
from oraculum.cli import main
from oraculum.core import paths
from oraculum.core.config import all_keys
from oraculum.core.errors import ExitCode
from oraculum.core.presets import PRESET_IDS
from oraculum.core.providers import GEMINI_MODES

ORACULUM = Path(sys.executable).parent / "oraculum"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".oraculum").mkdir(parents=True)
    (root / ".git").mkdir()
    return root


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_show_json(home: Path, project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    global_path = write(paths.global_config_path(), {"browser": {"maxConcurrentJobs": 3}})
    project_path = write(paths.project_config_path(project), {"worker": {"pollMs": 1500}})
    code, out, _ = run(capsys, "--json", "config", "show", "--project", str(project))
    assert code == 0
    data = json.loads(out)
    assert data["config"]["browser"]["maxConcurrentJobs"] == 3
    assert data["config"]["worker"]["pollMs"] == 1500
    assert data["sources"]["browser.maxConcurrentJobs"] == str(global_path)
    assert data["sources"]["worker.pollMs"] == str(project_path)
    assert data["sources"]["poller.intervalMs"] == "built-in"
    assert set(data["sources"]) == set(all_keys())
    assert data["files"] == [str(global_path), str(project_path)]


def test_show_human(home: Path, project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    global_path = write(paths.global_config_path(), {"browser": {"maxConcurrentJobs": 3}})
    code, out, _ = run(capsys, "config", "show", "--project", str(project))
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith("browser.maxConcurrentJobs"))
    assert " 3 " in row
    assert "".join(out.split()).count(str(global_path)) >= 2  # a source cell and "files read"
    assert "worker.pollMs" in out and "built-in" in out


def test_show_finds_the_project_from_the_cwd(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project_path = write(paths.project_config_path(project), {"poller": {"intervalMs": 700}})
    nested = project / "src" / "pkg"
    nested.mkdir(parents=True)
    monkeypatch.chdir(nested)
    code, out, _ = run(capsys, "--json", "config", "show")
    assert code == 0
    data = json.loads(out)
    assert data["config"]["poller"]["intervalMs"] == 700
    assert data["sources"]["poller.intervalMs"] == str(os.path.realpath(project_path))


def test_check_ok(home: Path, project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "config", "check", "--project", str(project))
    assert (code, out.startswith("OK")) == (0, True)
    code, out, _ = run(capsys, "--json", "config", "check", "--project", str(project))
    assert code == 0
    assert json.loads(out) == {"ok": True, "files": []}


def test_check_reports_the_error(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(paths.project_config_path(project), {"browser": {"executablePath": "/bin/sh"}})
    code, out, err = run(capsys, "config", "check", "--project", str(project))
    assert code == ExitCode.NOT_READY
    assert out == ""
    assert "error[oracle_config_invalid]" in err
    assert str(path) in err.replace("\n", "") and "browser.executablePath" in err

    code, out, _ = run(capsys, "--json", "config", "check", "--project", str(project))
    assert code == ExitCode.NOT_READY
    error = json.loads(out)["error"]
    assert error["code"] == "oracle_config_invalid"
    assert error["details"] == {"file": str(path), "key": "browser.executablePath"}


def test_show_fails_on_invalid_config_in_json_mode(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(paths.global_config_path(), {"browser": {"args": ["--remote-debugging-port=1"]}})
    code, out, _ = run(capsys, "config", "--json", "show", "--project", str(project))
    assert code == ExitCode.NOT_READY
    error = json.loads(out)["error"]
    assert error["details"] == {"file": str(path), "key": "browser.args"}
    assert error["rejectedValue"] == "--remote-debugging-port=1"


def test_missing_project_dir_is_a_usage_error(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "--json", "config", "show", "--project", str(tmp_path / "nope"))
    assert code == ExitCode.INVALID_INPUT
    assert json.loads(out)["error"]["code"] == "invalid_argument"


def test_presets_human(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "presets")
    assert code == 0
    for preset_id in ("pro_extended", "thinking_heavy", "deep_research", "heavy"):
        assert preset_id in out
    assert "Deep Research" in out and "Grok Heavy" in out


def test_presets_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--json", "presets")
    assert code == 0
    rows = json.loads(out)
    assert [row["id"] for row in rows] == [*PRESET_IDS, "heavy", *GEMINI_MODES.ids]
    deep = next(row for row in rows if row["id"] == "deep_research")
    assert deep == {
        "provider": "chatgpt",
        "id": "deep_research",
        "label": "Deep Research",
        "modelFamily": "pro",
        "effort": None,
        "autoSwitchToThinking": False,
        "tool": "deep_research",
    }
    assert next(row for row in rows if row["id"] == "heavy")["provider"] == "grok"
    assert rows[-1]["provider"] == "gemini"


def _subprocess(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ORACULUM), *args],
        cwd=cwd,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_subprocess_show_json(home: Path, project: Path) -> None:
    global_path = write(paths.global_config_path(), {"artifacts": {"capture": False}})
    done = _subprocess(["--json", "config", "show"], cwd=project)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["config"]["artifacts"]["capture"] is False
    assert data["sources"]["artifacts.capture"] == str(global_path)
    assert data["files"] == [str(global_path)]


def test_subprocess_error_json(home: Path, project: Path) -> None:
    write(paths.global_config_path(), {"browser": {"chatUrl": "https://evil.example/"}})
    done = _subprocess(["--json", "config", "check"], cwd=project)
    assert done.returncode == ExitCode.NOT_READY
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "oracle_config_invalid"
    assert error["details"]["key"] == "browser.chatUrl"
