"""Issue 38 §5, human output for people and prose for agents: `submit` says what was submitted
and how to follow it, `submit --wait` ends with the answer, a failed job's status says its code,
selection and next step, phases read as words, and the exit codes mean what they say. Every
command runs as a real process, as a person at a terminal would run it."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from homes import finished, write_fast_config
from oraculum.service.caller import Caller
from oraculum.service.submit import submit

ORACULUM = Path(sys.executable).with_name("oraculum")
# What only agents should read: advice to stop, tool names, the resubmission guard, reprs.
AGENT_ONLY = re.compile(r"Stop now|oracle_\w+\(|`oracle_\w+|not an instruction|\{'|\bNone\b")


def oraculum(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(ORACULUM), *args],
        cwd=cwd,
        env=dict(os.environ, ORACULUM_SESSION="people"),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def test_human_submit_says_what_was_sent_and_how_to_follow_it(project: Path) -> None:
    done = oraculum("submit", "-p", "hello there", "--provider", "test", "src", cwd=project)
    assert done.returncode == 0, done.stderr
    said = done.stdout
    job_id = re.search(r"\b([0-9a-z]{13})\b", said)
    assert job_id, said
    assert "1 file" in said and "MiB" in said
    assert f"oraculum wait {job_id.group(1)}" in said
    assert f"oraculum read {job_id.group(1)}" in said
    assert not AGENT_ONLY.search(said), said
    # Agents asking for JSON still get the full message, advice included.
    agent = json.loads(
        oraculum("--json", "submit", "-p", "hi", "--provider", "test", cwd=project).stdout
    )
    assert "Stop now" in agent["message"] or "wait" in agent["message"]


def test_human_submit_wait_ends_with_the_answer(project: Path) -> None:
    done = oraculum(
        "submit",
        "-p",
        "a question worth waiting for",
        "--provider",
        "test",
        "--wait",
        "src",
        cwd=project,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("Test answer to: a question worth waiting for")
    assert "complete" in done.stdout
    assert not AGENT_ONLY.search(done.stdout + done.stderr), done.stdout + done.stderr


def test_human_status_of_a_failed_job_names_code_selection_and_next_step(project: Path) -> None:
    result = submit(
        "q",
        ["src"],
        caller=Caller(session="people"),
        provider="test",
        selection_extras={"outcome": "fail"},
    )
    job_id = result.job["id"]
    finished(job_id)
    done = oraculum("status", job_id, cwd=project)
    assert done.returncode == 0, done.stderr
    said = done.stdout
    assert "test_provider_failed" in said
    assert "provider: test" in said
    assert "next step:" in said
    assert not AGENT_ONLY.search(said), said


def test_phases_read_as_words(project: Path) -> None:
    result = submit(
        "q",
        ["src"],
        caller=Caller(session="people"),
        provider="test",
        selection_extras={"outcome": "hang"},
    )
    job_id = result.job["id"]
    deadline = time.monotonic() + 60
    while "awaiting response" not in (shown := oraculum("status", cwd=project).stdout):
        assert time.monotonic() < deadline, shown
        time.sleep(0.3)
    assert "awaiting_response" not in shown
    one = oraculum("status", job_id, cwd=project).stdout
    assert "awaiting response" in one and "awaiting_response" not in one
    oraculum("cancel", job_id, cwd=project)


def test_archive_too_large_is_not_busy(project: Path) -> None:
    write_fast_config({"archive": {"chatgptMaxBytes": 10}})
    done = oraculum("--json", "submit", "-p", "q", "--provider", "test", "src", cwd=project)
    assert json.loads(done.stdout)["error"]["code"] == "archive_too_large"
    assert done.returncode == 2  # fix the call (fewer files), not "busy, try again"


def test_ctrl_c_exits_130(project: Path) -> None:
    result = submit(
        "q",
        ["src"],
        caller=Caller(session="people"),
        provider="test",
        selection_extras={"outcome": "hang"},
    )
    job_id = result.job["id"]
    # A shell starts a background command with SIGINT ignored, and an ignored signal stays
    # ignored in every child (CI may start the suite so): the wait gets SIGINT's default, as
    # a terminal's foreground job has it, whatever this process was given.
    given = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        waiting = subprocess.Popen(
            [str(ORACULUM), "wait", job_id],
            cwd=project,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(os.environ, PYTHONFAULTHANDLER="1"),  # a SIGABRT shows where it is stuck
        )
    finally:
        signal.signal(signal.SIGINT, given)
    time.sleep(3)  # well inside the wait
    waiting.send_signal(signal.SIGINT)
    try:
        out, err = waiting.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        waiting.send_signal(signal.SIGABRT)
        raise AssertionError(f"Ctrl-C did not end the wait: {waiting.communicate()}") from None
    assert waiting.returncode == 130, (out, err)
    assert "Traceback" not in err
    oraculum("cancel", job_id, cwd=project)


@pytest.fixture(autouse=True)
def _people_session(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORACULUM_SESSION", "people")
