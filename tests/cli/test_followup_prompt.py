"""Issue 38 §11: `followup` takes the prompt as `submit` does (`-p`, `--prompt-file`), every
argument after the job then being a file. The CLI runs as a real process."""

from __future__ import annotations

from pathlib import Path

import pytest

from homes import run_cli


@pytest.fixture(autouse=True)
def _session(oraculum_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After the home fixture, which clears any session the environment had."""
    monkeypatch.setenv("ORACULUM_SESSION", "follow")


def test_followup_takes_dash_p_and_every_later_argument_is_a_file(project: Path) -> None:
    (project / "notes.md").write_text("notes\n")
    code, first = run_cli("submit", "-p", "q", "--provider", "test", "--wait", "src", cwd=project)
    assert code == 0, first
    job_id = first["job"]["id"]
    code, follow = run_cli(
        "followup", job_id, "-p", "And the tests?", "notes.md", "src", cwd=project
    )
    assert code == 0, follow
    assert follow["job"]["archive"]["fileCount"] == 2  # notes.md and src/app.py
    code, waited = run_cli("wait", follow["job"]["id"], cwd=project)
    assert code == 0, waited
    answer = Path(waited["job"]["responsePath"]).read_text()
    assert answer.startswith("Test answer to: And the tests?")
    code, both = run_cli("followup", job_id, "-p", "x", "--prompt-file", "notes.md", cwd=project)
    assert code == 2 and both["error"]["code"] == "invalid_argument"
