"""Files the process cannot read: `archive --list` and the real build agree, a named one is an
error, a discovered one is reported, and an archive left with no files is refused (issue 13 §5).

Root reads mode-000 files, so as root the real `oraculum` CLI runs under `setpriv` with
CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH dropped from its bounding set: still uid 0 (the venv
under /root stays reachable), but file modes apply to it as to anyone. As another user the CLI
runs as it is.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .support import extract, git_init, tree_listing, write

ORACULUM = str(Path(sys.executable).with_name("oraculum"))
DENIED = "unreadable: Permission denied"


def _restricted_prefix() -> list[str] | None:
    """The argv prefix that makes file modes bind, or None when this machine cannot do it."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search", "--"]
    probe = subprocess.run([*prefix, "true"], capture_output=True, check=False)
    return prefix if probe.returncode == 0 else None


PREFIX = _restricted_prefix()
pytestmark = pytest.mark.skipif(
    PREFIX is None,
    reason="running as root without setpriv able to drop CAP_DAC_OVERRIDE: "
    "a mode-000 file stays readable, so there is nothing unreadable to test",
)


def _cli(*args: str) -> tuple[int, dict]:
    """Run the real CLI (restricted to file modes) and parse its one JSON document."""
    assert PREFIX is not None
    proc = subprocess.run(
        [*PREFIX, ORACULUM, "--json", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.stdout, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


# The walk-mode trees are plain directories, no project: `.` there needs --allow-any-dir.
def _list(root: Path, *inputs: str) -> tuple[int, dict]:
    return _cli("archive", "--list", "--allow-any-dir", "--project", str(root), *inputs)


def _build(root: Path, out: Path, *inputs: str) -> tuple[int, dict]:
    out.mkdir(parents=True, exist_ok=True)
    out_file = str(out / "ctx.tar.zst")
    return _cli("archive", "--allow-any-dir", "--project", str(root), "--out", out_file, *inputs)


def _skipped(doc: dict) -> set[tuple[str, str]]:
    return {(s["path"], s["reason"]) for s in doc["skipped"]}


def _members(archive: Path, dest: Path) -> list[str]:
    return sorted(p.decode() for p in tree_listing(extract(archive, dest)))


def test_unreadable_named_file_is_an_error(tmp_path: Path, mode: str, oraculum_home: Path) -> None:
    root = tmp_path / "repo"
    write(root, "src/app.py", b"print(1)\n")
    write(root, "notes/secret.txt", b"s")
    if mode == "git":
        git_init(root)
    (root / "notes/secret.txt").chmod(0)
    code, doc = _list(root, "src", "notes/secret.txt")
    assert code == 2
    assert doc["error"]["code"] == "archive_input_unreadable"
    assert doc["error"]["rejectedValue"] == "notes/secret.txt"
    assert "notes/secret.txt" in doc["error"]["message"]
    assert "Permission denied" in doc["error"]["message"]
    out = tmp_path / "out"
    code, doc = _build(root, out, "src", "notes/secret.txt")
    assert code == 2
    assert doc["error"]["code"] == "archive_input_unreadable"
    assert os.listdir(out) == []


def test_unreadable_discovered_file_is_reported(
    tmp_path: Path, mode: str, oraculum_home: Path
) -> None:
    root = tmp_path / "repo"
    write(root, "src/app.py", b"print(1)\n")
    write(root, "src/locked.txt", b"s")
    if mode == "git":
        git_init(root)
    (root / "src/locked.txt").chmod(0)
    code, listed = _list(root, ".")
    assert code == 0, listed
    assert [e["path"] for e in listed["entries"]] == ["src/app.py"]
    assert listed["fileCount"] == 1
    assert ("src/locked.txt", DENIED) in _skipped(listed)
    out = tmp_path / "out"
    code, built = _build(root, out, ".")
    assert code == 0, built
    assert built["fileCount"] == 1
    assert ("src/locked.txt", DENIED) in _skipped(built)
    assert _members(out / "ctx.tar.zst", tmp_path / "x") == ["src/app.py"]


def test_list_and_build_agree_on_unreadable(tmp_path: Path, mode: str, oraculum_home: Path) -> None:
    """Every way a file can be unreadable, in one tree: the preview and the archive hold the
    same members and report the same skips."""
    root = tmp_path / "repo"
    for rel in ("a.txt", "locked-file.txt", "closed/inside.txt", "no-search/inside.txt"):
        write(root, rel, rel.encode())
    write(root, "web/.npmrc", b"registry=https://r.example/\n")  # its content is checked
    write(root, "z/last.txt", b"z")
    if mode == "git":
        git_init(root)
    write(root, "closed/untracked.txt", b"u")  # git's walk cannot see this one
    (root / "locked-file.txt").chmod(0)
    (root / "web/.npmrc").chmod(0)
    (root / "closed").chmod(0)
    (root / "no-search").chmod(0o644)  # listable, but nothing inside can be reached
    code, listed = _list(root, ".")
    assert code == 0, listed
    out = tmp_path / "out"
    code, built = _build(root, out, ".")
    assert code == 0, built
    paths = [e["path"] for e in listed["entries"]]
    assert paths == ["a.txt", "z/last.txt"]
    assert _members(out / "ctx.tar.zst", tmp_path / "x") == paths
    assert built["fileCount"] == listed["fileCount"] == 2
    assert _skipped(built) == _skipped(listed)
    skipped = dict(_skipped(listed))
    assert skipped["locked-file.txt"] == DENIED
    assert skipped["web/.npmrc"] == DENIED
    assert skipped["closed"] == "unreadable directory: Permission denied"
    if mode == "git":
        # Tracked paths git lists from its index, below a directory that cannot be searched.
        assert skipped["closed/inside.txt"] == DENIED
    assert skipped["no-search/inside.txt"] == DENIED


def test_archive_with_no_files_is_refused(tmp_path: Path, mode: str, oraculum_home: Path) -> None:
    root = tmp_path / "repo"
    write(root, "src/a.py", b"a")
    write(root, "src/b.py", b"b")
    if mode == "git":
        git_init(root)
    for name in ("a.py", "b.py"):
        (root / "src" / name).chmod(0)
    code, listed = _list(root, "src")
    assert code == 2
    assert listed["error"]["code"] == "archive_empty"
    out = tmp_path / "out"
    code, built = _build(root, out, "src")
    assert code == 2
    assert built["error"]["code"] == "archive_empty"
    assert os.listdir(out) == []
    for doc in (listed, built):
        error = doc["error"]
        assert {(s["path"], s["reason"]) for s in error["details"]["skipped"]} == {
            ("src/a.py", DENIED),
            ("src/b.py", DENIED),
        }
        assert "could not be read" in error["message"]
