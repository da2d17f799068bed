"""Private by default outside a project (issue 38 item 1): `.` is refused in a home directory,
at `/` and in a directory that is no project, through the real CLI and MCP; named files and
`--allow-any-dir` still work; every submit says what it sends and what it left out."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from oraculum.archive.scope import is_broad, unsafe_scope
from oraculum.cli.output import PROGRESS_AFTER, WalkProgress
from oraculum.service.demo import sample_project

ORACULUM = str(Path(sys.executable).with_name("oraculum"))


@pytest.fixture
def home(tmp_path: Path, oraculum_home: Path) -> Path:
    """A home directory like a real one: a shell history, a GitHub token, a document."""
    home = tmp_path / "home"
    (home / ".config" / "gh").mkdir(parents=True)
    (home / "Documents").mkdir()
    (home / ".bash_history").write_text("export GITHUB_TOKEN=ghp_secret\n")
    (home / ".config" / "gh" / "hosts.yml").write_text("github.com:\n  oauth_token: gho_x\n")
    (home / "Documents" / "x.pdf").write_bytes(b"%PDF-1.4 private\n")
    return home


def run(home: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`oraculum ARGS` as a real process, its HOME at ``home``, run from ``cwd`` (the home)."""
    env = os.environ | {"HOME": str(home), "ORACULUM_SESSION": "scope", "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(
        [ORACULUM, *args], cwd=cwd or home, env=env, capture_output=True, text=True, timeout=120
    )


def as_json(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    return json.loads(done.stdout)


def _jobs(oraculum_home: Path) -> list[str]:
    jobs = Path(os.environ["ORACULUM_JOBS_DIR"])
    return sorted(p.name for p in jobs.glob("oracle-*")) if jobs.exists() else []


def test_submit_in_the_home_directory_is_refused(home: Path, oraculum_home: Path) -> None:
    for args in (["submit", "-p", "hi"], ["submit", "-p", "hi", "."]):
        done = run(home, "--json", *args, "--provider", "test")
        assert done.returncode == 2, done.stderr
        error = as_json(done)["error"]
        assert error["code"] == "archive_scope_unsafe"
        assert error["details"]["reason"] == "your home directory"
        assert "--allow-any-dir" in error["suggestedNextStep"]
    human = run(home, "submit", "-p", "hi", "--provider", "test")
    assert human.returncode == 2
    assert "archive_scope_unsafe" in human.stderr and "home directory" in human.stderr
    # A follow-up is refused the same way, before its job is even looked up.
    followup = run(home, "--json", "followup", "0000000000abc", "hi")
    assert as_json(followup)["error"]["code"] == "archive_scope_unsafe"
    assert _jobs(oraculum_home) == []  # nothing was archived, nothing admitted


def test_archive_list_in_the_home_directory_needs_allow_any_dir(
    home: Path, oraculum_home: Path
) -> None:
    for args in (["archive", "--list"], ["archive", "--list", "."], ["archive", "--out", "a"]):
        done = run(home, "--json", *args)
        assert done.returncode == 2 and as_json(done)["error"]["code"] == "archive_scope_unsafe"
    assert not (home / "a").exists()
    allowed = run(home, "--json", "archive", "--list", "--allow-any-dir")
    assert allowed.returncode == 0, allowed.stderr
    doc = as_json(allowed)
    # On purpose, the directory goes, but never its histories and credential stores.
    assert [e["path"] for e in doc["entries"]] == ["Documents/x.pdf"]
    reasons = {r["reason"] for r in doc["excluded"]}
    assert {"excluded file name .bash_history", "excluded gh/hosts.yml"} <= reasons
    # Progress is for a terminal only: a pipe gets none.
    assert "looked at" not in allowed.stderr


def test_named_files_in_the_home_directory_are_sent(home: Path, oraculum_home: Path) -> None:
    done = run(home, "submit", "-p", "hi", "--provider", "test", "Documents/x.pdf")
    assert done.returncode == 0, done.stderr
    assert "Archive: 1 file, " in done.stdout
    listed = as_json(run(home, "--json", "archive", "--list", "Documents"))
    assert [e["path"] for e in listed["entries"]] == ["Documents/x.pdf"]


def test_a_directory_that_is_no_project_is_refused_until_it_is_one(
    home: Path, tmp_path: Path, oraculum_home: Path
) -> None:
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "notes.txt").write_text("notes\n")
    done = run(home, "--json", "archive", "--list", cwd=loose)
    assert as_json(done)["error"]["details"]["reason"].startswith("not a project")
    subprocess.run(["git", "init", "-q"], cwd=loose, check=True)
    listed = run(home, "--json", "archive", "--list", cwd=loose)
    assert listed.returncode == 0, listed.stderr
    assert [e["path"] for e in as_json(listed)["entries"]] == ["notes.txt"]


def test_every_submit_says_what_it_sends_and_leaves_out(project: Path, oraculum_home: Path) -> None:
    (project / ".env").write_text("TOKEN=x\n")
    (project / "node_modules" / "a").mkdir(parents=True)
    (project / "node_modules" / "a" / "i.js").write_text("x\n")
    (project / "keys").mkdir()
    (project / "keys" / "deploy").write_text(
        "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "b3BlbnNzaC1rZXktdjEAAAAA" * 3 + "\n"
    )
    home = project.parent / "home"  # the project is not the home directory
    done = run(home, "submit", "-p", "hi", "--provider", "test", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "Archive: 2 files, " in done.stdout  # pyproject.toml, src/app.py
    left_out = next(line for line in done.stdout.splitlines() if line.startswith("Left out:"))
    assert "excluded file name .env (.env)" in left_out
    assert "credential content: private key (keys/deploy)" in left_out
    assert "excluded directory node_modules (node_modules/)" in left_out
    doc = as_json(
        run(home, "--json", "submit", "-p", "hi again", "--provider", "test", cwd=project)
    )
    reasons = [row["reason"] for row in doc["job"]["archive"]["excluded"]]
    assert "credential content: private key" in reasons


async def test_mcp_submit_refuses_dot_in_home_unless_allowed(
    home: Path, oraculum_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.mcp.support import mcp_client, text_of

    monkeypatch.setenv("HOME", str(home))
    async with mcp_client(home, "--session", "scope") as client:
        prompt = await client.get_prompt("oracle", {"request": "Review my notes"})
        assert "archive_scope_unsafe" in prompt.messages[0].content.text
        refused = await client.call_tool(
            "oracle_submit", {"prompt": "q", "files": ["."], "provider": "test"}
        )
        assert refused.is_error
        assert refused.structured_content["error"]["code"] == "archive_scope_unsafe"
        allowed = await client.call_tool(
            "oracle_submit",
            {"prompt": "q", "files": ["."], "provider": "test", "allowAnyDir": True},
        )
        assert not allowed.is_error, text_of(allowed)
        assert "Archive: 1 file," in text_of(allowed)


def test_the_scope_decision() -> None:
    home = Path("/home/u")
    assert unsafe_scope(Path("/"), home, marked=True) == "the filesystem root"
    assert unsafe_scope(home, home, marked=True) == "your home directory"
    assert unsafe_scope(home / "p", home, marked=True) is None
    assert (unsafe_scope(home / "p", None, marked=False) or "").startswith("not a project")
    assert is_broad([]) and is_broad(["."]) and is_broad(["src", "."])
    assert not is_broad(["src"]) and not is_broad(["./src"])


def test_the_demo_sends_its_own_sample_and_removes_it() -> None:
    with sample_project() as root:
        assert (root / "pyproject.toml").exists() and (root / "tiny_calc" / "ops.py").exists()
    assert not root.exists()


def test_walk_progress_is_one_line_on_a_terminal() -> None:
    progress = WalkProgress()
    progress.stream = io.StringIO()  # as if stderr were a terminal
    progress(256)
    progress(PROGRESS_AFTER)
    progress(PROGRESS_AFTER + 256)
    progress(PROGRESS_AFTER + 1024)
    progress.done()
    assert progress.stream.getvalue() == (
        f"\rarchive: looked at {PROGRESS_AFTER:,} paths…"
        f"\rarchive: looked at {PROGRESS_AFTER + 1024:,} paths…\r\033[K"
    )
