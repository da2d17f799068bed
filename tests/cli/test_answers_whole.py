"""Issue 38 §2, answers are never cut: `read` wraps on a terminal and prints the Markdown as
saved anywhere else, `read --raw` prints exactly response.md, and piped tables never truncate
ids or paths. Every command runs as a real process."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from homes import write_fast_config

ORACULUM = Path(sys.executable).with_name("oraculum")

# An answer with everything a terminal renderer used to crop: a long paragraph line, a long
# quote, a long code line, a table with a long cell and a long link. Each ends in a marker.
LONG_ANSWER = (
    "# Review\n\n"
    + "word " * 40
    + "PARAEND\n\n> "
    + "quoted " * 30
    + "QUOTEEND\n\n```python\nx = '"
    + "y" * 150
    + " CODEEND'\n```\n\n| file | note |\n|---|---|\n| src/app.py | "
    + "long " * 30
    + "CELLEND |\n\nSee https://example.com/"
    + "p" * 120
    + "LINKEND\n"
)
MARKERS = ("PARAEND", "QUOTEEND", "CODEEND", "CELLEND", "LINKEND")


def oraculum(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [str(ORACULUM), *args],
        cwd=cwd,
        env=env or dict(os.environ),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert b"Traceback" not in done.stderr, done.stderr.decode(errors="replace")
    return done


@pytest.fixture
def answered(project: Path) -> tuple[str, Path]:
    """A finished test-provider job whose saved answer holds :data:`LONG_ANSWER` (the test
    provider answers with the prompt)."""
    (project / "question.md").write_text(LONG_ANSWER)
    done = oraculum(
        "--json",
        "submit",
        "--prompt-file",
        "question.md",
        "--provider",
        "test",
        "--session",
        "whole",
        "--wait",
        "src",
        cwd=project,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    job = json.loads(done.stdout)["job"]
    response = Path(job["responsePath"])
    assert LONG_ANSWER.strip() in response.read_text()
    return job["id"], response


def test_read_under_a_pipe_prints_the_markdown_as_saved(
    answered: tuple[str, Path], project: Path
) -> None:
    job_id, response = answered
    done = oraculum("read", job_id, cwd=project)
    assert done.returncode == 0
    out = done.stdout.decode()
    assert response.read_text() in out  # verbatim: no reflow, no crop, no ellipsis
    assert all(marker in out for marker in MARKERS)


def test_read_raw_prints_exactly_response_md(answered: tuple[str, Path], project: Path) -> None:
    job_id, response = answered
    done = oraculum("read", job_id, "--raw", cwd=project)
    assert done.returncode == 0
    assert done.stdout == response.read_bytes()
    assert job_id.encode() in done.stderr  # the header went to stderr, not into the answer


def _read_in_a_terminal(args: list[str], cwd: Path, columns: int) -> str:
    """Run ``oraculum`` on a pseudo-terminal ``columns`` wide; everything it printed."""
    leader, follower = pty.openpty()
    env = dict(os.environ, COLUMNS=str(columns), LINES="50", TERM="xterm")
    child = subprocess.Popen(
        [str(ORACULUM), *args],
        cwd=cwd,
        env=env,
        stdin=follower,
        stdout=follower,
        stderr=follower,
        close_fds=True,
    )
    os.close(follower)
    chunks: list[bytes] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.5)
        if ready:
            try:
                data = os.read(leader, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        elif child.poll() is not None:
            break
    child.wait(timeout=10)
    os.close(leader)
    return b"".join(chunks).decode(errors="replace")


def test_read_on_a_terminal_wraps_and_never_crops(
    answered: tuple[str, Path], project: Path
) -> None:
    job_id, _ = answered
    shown = _read_in_a_terminal(["read", job_id], project, columns=60)
    # Wrapped lines break words and links anywhere: compare without escapes and whitespace.
    flat = re.sub(r"\s+", "", re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown))
    assert all(marker in flat for marker in MARKERS), shown
    assert "p" * 120 + "LINKEND" in flat and "y" * 150 in flat
    assert "…" not in shown


def test_piped_tables_never_truncate_ids_or_paths(project: Path, tmp_path: Path) -> None:
    long_path = tmp_path / ("a-rather-long-directory-name-" * 4) / "chromium"
    write_fast_config({"browser": {"executablePath": str(long_path)}})
    shown = oraculum("config", "show", cwd=project).stdout.decode()
    assert str(long_path) in shown
    presets = oraculum("presets", cwd=project).stdout.decode()
    listed = [p["id"] for p in json.loads(oraculum("--json", "presets", cwd=project).stdout)]
    assert listed and all(preset_id in presets for preset_id in listed)
    assert "…" not in presets and "…" not in shown
