"""`oraculum codex-search` as a real subprocess with the fake helper on PATH: the answer, a
failure's exit code and error shape, a missing helper."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .support import codex_records, install_fake_codex, path_with

ORACULUM = str(Path(sys.executable).with_name("oraculum"))


def _run(project: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ORACULUM, "codex-search", *args, "--json"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_codex_search_prints_the_answer_and_fails_with_its_code(
    project: Path, tmp_path: Path
) -> None:
    install_fake_codex(tmp_path / "bin")
    (tmp_path / "records").mkdir()
    env = {
        **os.environ,
        "PATH": path_with(tmp_path / "bin"),
        "FAKE_CODEX_RECORDS": str(tmp_path / "records"),
    }
    done = _run(project, env, "ok the question", "--effort", "research")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["ok"] is True and answer["text"].startswith("answer to: ok the question")
    [record] = codex_records(tmp_path / "records")
    assert record["argv"][1:3] == ["--profile", "research"]
    assert record["cwd"] == str(project)
    failed = _run(project, env, "fail please")
    assert failed.returncode == 1
    assert json.loads(failed.stdout)["error"]["code"] == "codex_search_failed"
    refused = _run(project, env, "a cat", "--image")
    assert refused.returncode == 2
    assert json.loads(refused.stdout)["error"]["code"] == "invalid_argument"


def test_a_missing_helper_exits_not_ready(project: Path) -> None:
    env = {**os.environ, "PATH": str(Path(sys.executable).parent)}
    missing = _run(project, env, "ok")
    assert missing.returncode == 4
    assert json.loads(missing.stdout)["error"]["code"] == "codex_search_unavailable"
