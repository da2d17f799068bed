"""`oraculum archive`: preview and build, human and JSON output, errors and exit codes."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from oraculum.cli import main

from .support import extract, git_init, tree_listing, write


def _tree(root: Path) -> None:
    write(root, "src/app.py", b"print(1)\n")
    write(root, "src/util.py", b"x = 2\n")
    write(root, "node_modules/dep/index.js")
    write(root, ".env", b"TOKEN=1")
    git_init(root)


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code = main(["--json", *args])
    return code, json.loads(capsys.readouterr().out)


def test_list_json(tmp_path: Path, capsys: pytest.CaptureFixture[str], oraculum_home: Path) -> None:
    _tree(tmp_path)
    code, doc = _json(capsys, "archive", "--list", "--project", str(tmp_path))
    assert code == 0
    assert [e["path"] for e in doc["entries"]] == ["src/app.py", "src/util.py"]
    assert doc["fileCount"] == 2
    assert doc["uncompressedBytes"] == len(b"print(1)\n") + len(b"x = 2\n")
    assert doc["source"] == "git"
    reasons = {g["reason"]: g for g in doc["excluded"]}
    assert reasons["excluded directory node_modules"]["examples"] == ["node_modules/"]
    assert reasons["excluded file name .env"]["filesListed"] == 1


def test_list_human(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], oraculum_home: Path
) -> None:
    _tree(tmp_path)
    assert main(["archive", "--list", "--project", str(tmp_path), "src"]) == 0
    out = capsys.readouterr().out
    assert "src/app.py" in out and "src/util.py" in out
    assert "2 entries" in out


def test_build_json_matches_what_a_job_uploads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], oraculum_home: Path
) -> None:
    root = tmp_path / "repo"
    _tree(root)
    target = tmp_path / "ctx.tar.zst"
    code, doc = _json(capsys, "archive", "--project", str(root), "--out", str(target))
    assert code == 0
    assert doc["path"] == str(target)
    assert doc["sha256"] == hashlib.sha256(target.read_bytes()).hexdigest()
    assert doc["fileCount"] == 2
    assert doc["limitBytes"] == 250 * 1024 * 1024
    assert set(tree_listing(extract(target, tmp_path / "x"))) == {b"src/app.py", b"src/util.py"}


def test_build_grok_into_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], oraculum_home: Path
) -> None:
    root = tmp_path / "repo"
    _tree(root)
    out = tmp_path / "out"
    out.mkdir()
    code, doc = _json(
        capsys,
        "archive",
        "src/app.py",
        "--provider",
        "grok",
        "--project",
        str(root),
        "--out",
        str(out),
    )
    assert code == 0
    assert doc["path"].endswith(".tar.gz") and Path(doc["path"]).parent == out
    assert doc["limitBytes"] == 200 * 1024 * 1024
    assert os.listdir(out) == [Path(doc["path"]).name]


def test_errors_have_codes_and_exit_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], oraculum_home: Path
) -> None:
    _tree(tmp_path)
    code, doc = _json(capsys, "archive", "--list", "--project", str(tmp_path), " . ")
    assert code == 2
    assert doc["error"]["code"] == "archive_input_whole_repo_sentinel_invalid"
    code, doc = _json(capsys, "archive", "--list", "--project", str(tmp_path), "missing")
    assert code == 2
    assert doc["error"]["code"] == "archive_input_missing"
    assert str(tmp_path) in doc["error"]["message"]
    code, doc = _json(capsys, "archive", "--provider", "claude", "--project", str(tmp_path))
    assert code == 2
    assert doc["error"]["code"] == "invalid_provider"


def test_list_of_an_empty_selection_is_refused_like_the_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], oraculum_home: Path
) -> None:
    root = tmp_path / "repo"
    write(root, "build/a.js")
    (root / ".oraculum").mkdir()  # a project (else `.` is refused: archive_scope_unsafe)
    code, doc = _json(capsys, "archive", "--list", "--project", str(root))
    assert code == 2
    assert doc["error"]["code"] == "archive_empty"
    assert doc["error"]["details"]["excluded"][0]["examples"] == ["build/"]
    out = tmp_path / "out"
    out.mkdir()
    code, doc = _json(capsys, "archive", "--project", str(root), "--out", str(out))
    assert code == 2
    assert doc["error"]["code"] == "archive_empty"
    assert os.listdir(out) == []
