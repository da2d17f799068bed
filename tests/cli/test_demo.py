"""`oraculum demo` as a new user runs it: a real process, outside any project."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def run_demo(
    *args: str, cwd: Path, timeout: float = 240, exe: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """`oraculum demo <args>` by an entry point (the test venv's unless ``exe``), as a user
    runs it (it inherits the test home's environment)."""
    exe = exe or Path(sys.executable).with_name("oraculum")
    return subprocess.run(
        [str(exe), "demo", *args],
        cwd=cwd,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def demo_outside_a_project(tmp_path: Path, *args: str, exe: Path | None = None) -> dict[str, Any]:
    """`oraculum demo --json <args>` from an empty directory: its result, which must succeed on
    the sample project."""
    empty = tmp_path / "nowhere"
    empty.mkdir()
    done = run_demo(*args, "--json", cwd=empty, exe=exe)
    assert done.returncode == 0, done.stdout + done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    assert result["sampleProject"] is True
    return result


def site_demo_job(tmp_path: Path, provider: str, mode: str) -> tuple[dict[str, Any], str]:
    """`oraculum demo --provider <provider>` outside a project: the job (complete, in ``mode``,
    collected whole, on a demo seed) and the answer, which names the site's own archive."""
    result = demo_outside_a_project(tmp_path, "--provider", provider)
    job = result["job"]
    assert job["status"] == "complete", job.get("error")
    assert job["provider"] == provider and job["selection"]["mode"] == mode
    assert job["collectionStatus"] == "complete", job.get("collectionGaps")
    assert f"context-{job['id']}.tar.gz" in result["response"]
    assert "demo" in job["config"]["browser"]["authSeedProfileDir"]
    return job, result["response"]


def test_demo_completes_outside_a_project(oraculum_home: Path, tmp_path: Path) -> None:
    result = demo_outside_a_project(tmp_path)
    job = result["job"]
    assert job["status"] == "complete"
    # The default demo succeeds plainly: its answer carries nothing collection cannot reach.
    assert job["collectionStatus"] == "complete", job.get("collectionGaps")
    assert not job.get("collectionGaps")
    assert f"context-{job['id']}.tar.zst" in result["response"]
    assert "tiny_calc/ops.py" in result["response"]
    # The demo never touches the real seed profile location.
    assert "demo" in job["config"]["browser"]["authSeedProfileDir"]
    assert not (oraculum_home / "data" / "seed-profiles").exists()


def test_demo_shows_partial_collection_on_request(oraculum_home: Path, tmp_path: Path) -> None:
    # `default` carries a signed export link: collection redacts it and says so.
    job = demo_outside_a_project(tmp_path, "--answer", "default")["job"]
    assert job["status"] == "complete"
    assert job["collectionStatus"] == "partial"
    assert "unresolved_source_links" in job["collectionGaps"]


def test_demo_refuses_an_unknown_answer(oraculum_home: Path, tmp_path: Path) -> None:
    done = run_demo("--answer", "nonsense", "--json", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert json.loads(done.stdout)["error"]["code"] == "invalid_argument"


def test_demo_human_output_renders_the_answer(oraculum_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "x"\n')
    (project / "main.py").write_text("print('hello')\n")
    done = run_demo("--shell", "redesign", cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "complete — answer saved to" in done.stdout
    # The demo sends its own sample project, never the one it runs in, and removes the copy.
    assert "tiny_calc/ops.py" in done.stdout and "main.py" not in done.stdout
    sent = next(line for line in done.stdout.splitlines() if "project: " in line)
    copy = Path(sent.split("project: ", 1)[1].split(" (", 1)[0])
    assert copy.name.startswith("oraculum-demo-project-") and not copy.exists()
