"""`submit --dry-run` and the duplicate guard through the real `oraculum` command (issue 43
§2, §3): a dry run says everything and leaves no trace; an identical submit while the first
job runs is `duplicate_job` unless `--force`, and goes through once the first has ended."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from oraculum.core.config import load_config, seed_profile_dir
from oraculum.core.paths import jobs_dir, state_dir
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.submit import submit

ORACULUM = str(Path(sys.executable).with_name("oraculum"))
PROMPT = "Review   the parser.\n\nBe brief: ünïcode kept."

pytestmark = pytest.mark.slow


def oraculum(project: Path, *args: str, tmp: Path | None = None) -> tuple[int, Any, str]:
    """Run the real command in ``project``; (exit code, --json document or None, stderr)."""
    env = dict(os.environ, ORACULUM_SESSION="dry-run-test")
    if tmp is not None:
        env["TMPDIR"] = str(tmp)
    done = subprocess.run(
        [ORACULUM, *args], cwd=project, env=env, capture_output=True, text=True, timeout=120
    )
    document = json.loads(done.stdout) if "--json" in args and done.stdout else None
    return done.returncode, document, done.stdout + done.stderr


def tree(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*")) if path.exists() else []


def test_dry_run_prints_each_field_and_leaves_no_trace(project: Path, tmp_path: Path) -> None:
    (project / "node_modules").mkdir()
    (project / "node_modules" / "dep.js").write_text("x")
    temp = tmp_path / "tmp"
    temp.mkdir()
    code, _, out = oraculum(
        project, "submit", "--dry-run", "-p", PROMPT, "--provider", "TEST",
        "--preset", "Pro Extended", ".", tmp=temp,
    )  # fmt: skip
    assert code == 0, out
    assert "Dry run: nothing was sent and no job was created." in out
    assert 'Provider: test (from "TEST", argument); ' in out
    assert 'preset: pro_extended (from "Pro Extended", argument).' in out
    assert "Archive: 2 files, 0.00 MiB." in out  # pyproject.toml, src/app.py
    assert "Left out: excluded directory node_modules (node_modules/)." in out
    assert "Estimated tokens: prompt " in out and "(an estimate: UTF-8 bytes / 4" in out
    assert "Capacity: 0/2 active, 0/2 queued (global)." in out
    assert out.index("Prompt as it will be typed:\n" + PROMPT) > 0
    assert tree(jobs_dir()) == [] and tree(state_dir() / "index") == []
    assert list(temp.iterdir()) == []  # the archive was built in a temp dir, and removed
    assert JobStore().list_ids() == []


def test_dry_run_json_shape(project: Path) -> None:
    # ChatGPT, as a real submit: a seed profile is there (its sign-in is not checked here).
    seed_profile_dir(load_config(project).config, "chatgpt").mkdir(parents=True, mode=0o700)
    code, doc, out = oraculum(project, "--json", "submit", "--dry-run", "-p", PROMPT, "src")
    assert code == 0, out
    assert set(doc) == {"dryRun"}
    dry = doc["dryRun"]
    assert set(dry) == {
        "prompt", "provider", "preset", "selection", "archive", "autoPrunedArchivePaths",
        "estimatedTokens", "capacity", "capacityLine",
    }  # fmt: skip
    assert dry["prompt"] == PROMPT
    # No provider named: the configured default, ChatGPT with its default preset.
    assert dry["provider"] == {"chosen": "chatgpt", "requested": None, "from": "config default"}
    assert dry["preset"]["from"] == "config default" and dry["preset"]["chosen"]
    assert dry["selection"]["provider"] == "chatgpt"
    archive = dry["archive"]
    assert archive["fileCount"] == 1 and archive["bytes"] > 0 and archive["limitBytes"] > 0
    prompt_tokens = -(-len(PROMPT.encode()) // 4)
    file_tokens = -(-len((project / "src" / "app.py").read_bytes()) // 4)
    assert dry["estimatedTokens"] == {
        "prompt": prompt_tokens,
        "archive": file_tokens,
        "total": prompt_tokens + file_tokens,
        "rule": "UTF-8 bytes / 4, rounded up; archive files counted uncompressed",
    }
    assert dry["capacity"] == {"active": 0, "maxActive": 2, "queued": 0, "maxQueued": 2}
    assert dry["capacityLine"] == "Capacity: 0/2 active, 0/2 queued (global)."
    assert tree(jobs_dir()) == []


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("submit", "--provider", "test", "-p", "q", "nope.py"), "archive_input_missing"),
        (("submit", "--provider", "test", "-p", "q", "--preset", "bogus", "src"), "invalid_preset"),
        (("submit", "-p", "q", "src"), "auth_seed_profile_missing"),
        (("submit", "--provider", "test", "-p", "  ", "src"), "invalid_argument"),
        (("followup", "abcd1234", "q"), "follow_up_job_not_found"),
    ],
)
def test_dry_run_refuses_what_a_submit_refuses(
    project: Path, args: tuple[str, ...], expected: str
) -> None:
    code, doc, out = oraculum(project, "--json", *args)
    assert doc["error"]["code"] == expected, out
    dry_code, dry_doc, out = oraculum(project, "--json", *args[:1], "--dry-run", *args[1:])
    assert (dry_code, dry_doc["error"]["code"]) == (code, expected), out
    assert JobStore().list_ids() == []


def _hanging_job(project: Path) -> str:
    """A job that runs until cancelled (a real worker), of the request the CLI then repeats."""
    return submit(
        PROMPT,
        ["src"],
        caller=Caller(cwd=project, session="dry-run-test"),
        provider="test",
        selection_extras={"outcome": "hang"},
    ).job["id"]


def test_duplicate_refused_while_the_first_runs_forced_and_accepted_after(project: Path) -> None:
    first = _hanging_job(project)
    args = ("--json", "submit", "-p", PROMPT, "--provider", "test", "src")

    code, doc, out = oraculum(project, *args)
    assert code == 5, out
    error = doc["error"]
    assert error["code"] == "duplicate_job" and error["retryable"] is False
    assert first in error["message"] and error["details"]["jobId"] == first
    assert f"oraculum wait {first}" in error["suggestedNextStep"]
    assert "--force" in error["suggestedNextStep"]
    assert JobStore().list_ids() == [first]  # nothing was created for it

    # The dry run says so too, and still sends nothing.
    code, doc, out = oraculum(project, "--json", "submit", "--dry-run", *args[2:])
    assert code == 0 and doc["dryRun"]["duplicateOf"] == first, out

    code, doc, out = oraculum(project, *args, "--force")
    assert code == 0, out
    forced = doc["job"]["id"]
    assert forced != first

    # Once both have ended (the forced one answered, the first cancelled), it goes through.
    code, doc, out = oraculum(project, "--json", "wait", forced)
    assert code == 0 and doc["job"]["status"] == "complete", out
    code, _, out = oraculum(project, "--json", "cancel", first)
    assert code == 0, out
    code, doc, out = oraculum(project, *args)
    assert code == 0, out
    assert doc["job"]["id"] not in (first, forced)


def test_a_different_request_is_no_duplicate(project: Path) -> None:
    _hanging_job(project)
    for changed in (
        ("-p", PROMPT + "?", "--provider", "test"),  # another prompt
        ("-p", PROMPT, "--provider", "test", "--preset", "pro_standard"),  # another preset
        ("-p", PROMPT, "--provider", "test", "."),  # another archive
    ):
        code, _, out = oraculum(project, "--json", "submit", *changed, "src")
        assert code == 0, out


def test_followup_dry_run_names_the_job_it_continues(project: Path) -> None:
    code, doc, out = oraculum(
        project, "--json", "submit", "-p", "First.", "--provider", "test", "--wait", "src"
    )
    assert code == 0, out
    first = doc["job"]["id"]
    before = JobStore().list_ids()
    code, doc, out = oraculum(project, "--json", "followup", "--dry-run", first, "And then?")
    assert code == 0, out
    dry = doc["dryRun"]
    assert dry["followUpToJobId"] == first and dry["prompt"] == "And then?"
    assert dry["provider"] == {"chosen": "test", "requested": None, "from": "follow-up job"}
    assert JobStore().list_ids() == before
    code, _, out = oraculum(project, "followup", "--dry-run", "--wait", first, "And then?")
    assert code == 2 and "nothing to --wait for" in out
