"""Every agent-surface command's --json output (the shapes docs/agents.md documents), and
snapshots of the human `status` and `read` output."""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from pathlib import Path

import pytest
from rich.console import Console

from oraculum.cli import main
from oraculum.cli.read_cmd import render_header, render_read
from oraculum.cli.status_cmd import render_job, render_jobs
from oraculum.core.paths import global_config_path
from oraculum.jobs.store import JobStore
from oraculum.service.read import read
from oraculum.service.status import status

SNAPSHOTS = Path(__file__).with_name("snapshots")


@pytest.fixture
def project(tmp_path: Path, oraculum_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "pyproject.toml").write_text("")
    (root / "src" / "app.py").write_text("print('hi')\n")
    path = global_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"worker": {"heartbeatIntervalMs": 200}}))
    monkeypatch.chdir(root)
    monkeypatch.setenv("ORACULUM_SESSION", "cli-test")
    return root


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code = main(["--json", *args])
    return code, json.loads(capsys.readouterr().out)


def submit_and_wait(capsys, prompt: str = "Explain *this*.") -> dict:
    code, done = run(capsys, "submit", "-p", prompt, "--provider", "test", "--wait", "src")
    assert code == 0, done
    return done


@pytest.mark.slow
def test_json_of_every_command(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, ready = run(capsys, "preflight", "--provider", "test")
    assert code == 0 and ready["ready"] is True
    assert ready["capacityLine"] == "Capacity: 0/2 active, 0/2 queued (global)."
    assert set(ready) >= {"session", "config", "auth", "browser", "capacity", "provider"}

    code, submitted = run(capsys, "submit", "-p", "Why?", "--provider", "test", "src")
    assert code == 0
    job = submitted["job"]
    assert set(job) >= {
        "id", "status", "phase", "promptPath", "archivePath", "responsePath",
        "artifactsPath", "queue", "autoPrunedArchivePaths", "sessionId", "lastEvent",
    }  # fmt: skip
    assert submitted["message"].startswith(f"Oracle job dispatched: {job['id']}")

    code, waited = run(capsys, "wait", job["id"])
    assert code == 0 and waited["done"] is True and waited["delivered"] is True
    assert waited["wakeup"]["jobId"] == job["id"] and waited["job"]["status"] == "complete"

    code, shown = run(capsys, "status", job["id"])
    assert code == 0 and shown["job"]["id"] == job["id"]
    code, recent = run(capsys, "status")
    assert code == 0 and recent["recentJobIds"] == [job["id"]]

    code, answer = run(capsys, "read", job["id"])
    assert code == 0 and answer["response"]["preview"] == "Test answer to: Why?\n"
    assert answer["job"]["wakeup"]["settled"] is True
    assert set(answer) >= {"job", "response", "gaps", "artifacts"}

    code, follow = run(capsys, "followup", job["id"], "And then?", "--wait", "src")
    assert code == 0 and follow["job"]["followUpToJobId"] == job["id"]

    code, refused = run(capsys, "cancel", job["id"])
    assert code == 2 and refused["error"]["code"] == "job_not_cancellable"
    code, usage = run(capsys, "cancel")
    assert code == 2 and "Usage: oraculum cancel <job-id>" in usage["error"]["message"]

    code, kept = run(capsys, "clean", follow["job"]["id"])  # the wake-up grace keeps its files
    assert code == 5 and kept["error"]["code"] == "clean_blocked"
    code, cleaned = run(capsys, "clean", job["id"])  # read: nobody needs its files any more
    assert code == 0 and cleaned["removed"] == [job["id"]]
    code, expired = run(capsys, "clean", "--expired")
    assert code == 0 and expired["removed"] == []

    # No browser profile to import from (an empty HOME) and no display for a manual sign-in.
    empty_home = Path(tempfile.mkdtemp(prefix="oraculum-empty-home-"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(empty_home))
        patch.delenv("DISPLAY", raising=False)
        patch.delenv("WAYLAND_DISPLAY", raising=False)
        code, auth = run(capsys, "auth")
    assert code == 4 and auth["error"]["code"] == "auth_unavailable"


@pytest.mark.slow
def test_cancel_a_running_job_and_wait_exit_codes(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from oraculum.service.submit import submit

    job = submit("hang", ["src"], provider="test", selection_extras={"outcome": "hang"}).job
    code, timed_out = run(capsys, "wait", job["id"], "--timeout", "0.3")
    assert code == 5 and timed_out["error"]["code"] == "wait_timeout"
    code, cancelled = run(capsys, "cancel", job["id"][:8])
    assert code == 0 and cancelled["outcome"] == "cancelled"
    code, waited = run(capsys, "wait", job["id"])
    assert code == 6 and waited["job"]["status"] == "cancelled"


def test_refusals_exit_with_their_codes(project: Path, capsys) -> None:
    os.environ.pop("ORACULUM_SESSION")
    code, none = run(capsys, "submit", "-p", "q", "--provider", "test")
    assert code == 4 and none["error"]["code"] == "persisted_session_required"
    code, blocked = run(capsys, "preflight", "--session", "s")
    assert code == 4 and blocked["error"]["code"] == "auth_seed_profile_missing"
    assert blocked["error"]["details"]["preflight"]["auth"]["ready"] is False
    code, bad = run(capsys, "submit", "-p", "q", "--preset", "nope", "--session", "s")
    assert code == 2 and bad["error"]["code"] == "invalid_preset"
    code, missing = run(capsys, "submit", "-p", "q", "--provider", "test", "--session", "s", "x")
    assert code == 2 and missing["error"]["code"] == "archive_input_missing"
    assert not any(JobStore().list_ids())  # refusals leave no job behind
    code, unknown = run(capsys, "read", "zzzzzzzzzzzzz")
    assert code == 3 and unknown["error"]["code"] == "job_not_found"


# Snapshots -----------------------------------------------------------------------------------


def normalise(text: str, ids: list[str], root: Path) -> str:
    for index, job_id in enumerate(ids):
        text = text.replace(job_id, f"<job-{index}>")
    text = text.replace(str(root), "<home>")
    text = re.sub(r"\b\d+(s|m|h\d*m?|d)\b", "<age>", text)
    # Column widths follow the raw cell lengths (ids, ages): compare cells, not padding.
    return "\n".join(re.sub(r" {2,}", "  ", line.rstrip()) for line in text.splitlines()) + "\n"


def check_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("UPDATE_SNAPSHOTS"):
        path.write_text(text)
    assert path.exists(), f"missing snapshot {path}; run with UPDATE_SNAPSHOTS=1"
    assert text == path.read_text()


def rendered(render) -> str:
    console = Console(
        record=True, width=300, soft_wrap=True, color_system=None, force_terminal=True
    )
    render(console)
    return console.export_text()


@pytest.mark.slow
def test_human_status_and_read_snapshots(
    project: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    done = submit_and_wait(capsys, "Explain **this** in a list:\n\n- one\n- two")
    job_id = done["job"]["id"]
    from oraculum.service.submit import submit

    running = submit("hold", ["src"], provider="test", selection_extras={"outcome": "hang"})
    queued = submit("wait", ["src"], provider="test", selection_extras={"outcome": "hang"})
    third = submit("later", ["src"], provider="test")
    ids = [job_id, running.job["id"], queued.job["id"], third.job["id"]]
    store = JobStore()
    for active in ids[1:3]:  # both running jobs parked in awaiting_response, heartbeat fresh
        deadline = time.monotonic() + 20
        while store.load(active).phase.value != "awaiting_response":
            assert time.monotonic() < deadline
            time.sleep(0.05)
    home = tmp_path
    try:
        table = rendered(lambda c: render_jobs(status().to_json(), c))
        check_snapshot("status_table.txt", normalise(table, ids, home))
        one = rendered(lambda c: render_job(status(job_id).to_json(), c))
        check_snapshot("status_job.txt", normalise(one, ids, home))
        answer = read(job_id, preview_chars=None)
        check_snapshot(
            "read_markdown.txt", normalise(rendered(lambda c: render_read(answer, c)), ids, home)
        )
        # `read --raw` (exactly response.md, the header on stderr): tests/cli/test_answers_whole.py
        check_snapshot(
            "read_header.txt", normalise(rendered(lambda c: render_header(answer, c)), ids, home)
        )
    finally:
        from oraculum.service.cancel import cancel

        for job in ids[1:]:
            try:
                cancel(job)
            except Exception:
                pass
