"""Issue 13 §6, the smaller defects: directory modes, prompt input and its cap, `clean` of a
running job, bounded project durations, and one rule for an empty job id. Each test is named
after the defect it pins down; the CLI runs as a real process where the defect was seen there."""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import pytest
from mcp.client.stdio import StdioServerParameters

from homes import finished, run_cli
from mcp import Client
from oraculum.cli import main
from oraculum.core import paths
from oraculum.core.config import (
    PROJECT_MAXIMA,
    PROJECT_SECTIONS,
    SECTION_MODELS,
    field_range,
    load_config,
)
from oraculum.core.errors import ExitCode, OracleError
from oraculum.core.fsio import ensure_private_dir
from oraculum.core.paths import jobs_dir
from oraculum.core.providers import provider_spec
from oraculum.jobs.retention import remove_job
from oraculum.jobs.store import JobStore
from oraculum.service.submit import submit

ORACULUM = Path(sys.executable).with_name("oraculum")
MIB = 1024 * 1024


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["--json", *args])
    return code, json.loads(capsys.readouterr().out)


def files_under(root: Path) -> list[Path]:
    return [Path(d) / name for d, _, names in os.walk(root) for name in names]  # none: []


@pytest.fixture
def session(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("ORACULUM_SESSION", "small-defects")
    return "small-defects"


# --- 1. every directory oraculum creates is 0700 ---------------------------------------------


@pytest.fixture
def deep_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every oraculum location several levels below a pre-existing 0755 directory."""
    base = tmp_path / "base"
    base.mkdir()
    base.chmod(0o755)
    locations = {
        "ORACULUM_JOBS_DIR": base / "a" / "b" / "jobs",
        "ORACULUM_STATE_DIR": base / "c" / "d" / "e" / "state",
        "ORACULUM_CONFIG_DIR": base / "f" / "config",
        "ORACULUM_DATA_DIR": base / "g" / "h" / "data",
    }
    for name, value in locations.items():
        monkeypatch.setenv(name, str(value))
    monkeypatch.setenv("ORACULUM_SESSION", "deep-home")
    old = os.umask(0o022)  # the common umask, under which mkdir(parents=True) made 0755
    try:
        yield base
    finally:
        os.umask(old)


def test_intermediate_directories_are_created_0700(deep_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "pyproject.toml").write_text("")
    (project / "src" / "app.py").write_text("print('hi')\n")

    code, done = run_cli("submit", "-p", "hi", "--provider", "test", "--wait", "src", cwd=project)
    assert code == 0, done
    code, listed = run_cli("status", cwd=project)
    assert code == 0 and listed["recentJobIds"] == [done["job"]["id"]]

    created = [Path(d) / name for d, names, _ in os.walk(deep_home) for name in names]
    assert len(created) > 10  # jobs, state (locks, leases, index, sessions), data, …
    loose = {str(p): oct(stat.S_IMODE(p.stat().st_mode)) for p in created}
    assert {p: m for p, m in loose.items() if m != "0o700"} == {}
    # A parent oraculum did not create keeps its mode.
    assert stat.S_IMODE(deep_home.stat().st_mode) == 0o755


def test_ensure_private_dir_creates_each_missing_parent_0700_and_leaves_existing_ones(
    tmp_path: Path,
) -> None:
    existing = tmp_path / "existing"
    existing.mkdir()
    existing.chmod(0o751)
    old = os.umask(0o022)
    try:
        leaf = ensure_private_dir(existing / "x" / "y" / "z")
    finally:
        os.umask(old)
    assert leaf.is_dir()
    for directory in (existing / "x", existing / "x" / "y", leaf):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700, directory
    assert stat.S_IMODE(existing.stat().st_mode) == 0o751
    (tmp_path / "file").write_text("")
    with pytest.raises(FileExistsError):
        ensure_private_dir(tmp_path / "file")
    with pytest.raises(NotADirectoryError):
        ensure_private_dir(tmp_path / "file" / "below")


# --- 2. prompts: UTF-8, --prompt-file, a per-provider cap ------------------------------------


def test_prompt_not_valid_utf8_is_refused_before_any_archive(project: Path, session: str) -> None:
    code, refused = run_cli(
        "submit", b"-p", b"caf\xe9 \xff?", "--provider", "test", "src", cwd=project
    )
    assert code == ExitCode.INVALID_INPUT
    assert refused["error"]["code"] == "invalid_argument"
    assert "UTF-8" in refused["error"]["message"]
    assert files_under(jobs_dir()) == []  # no archive, no staging file, no job

    bad_file = project.parent / "latin1.txt"
    bad_file.write_bytes(b"caf\xe9")
    code, refused = run_cli(
        "submit", "--prompt-file", str(bad_file), "--provider", "test", "src", cwd=project
    )
    assert code == ExitCode.INVALID_INPUT and refused["error"]["code"] == "invalid_argument"
    assert str(bad_file) in refused["error"]["message"]
    assert files_under(jobs_dir()) == []


def test_prompt_with_lone_surrogate_is_refused_by_the_service(project: Path, session: str) -> None:
    with pytest.raises(OracleError) as caught:
        submit("caf\udce9", ["src"], provider="test")
    assert caught.value.code == "invalid_argument" and caught.value.exit_code == 2
    assert files_under(jobs_dir()) == []


@pytest.mark.slow
def test_prompt_file_passes_a_5_mb_prompt_and_stdin_works(project: Path, session: str) -> None:
    big = ("Ünïcode line of a long prompt.\n" * 200_000)[: 5 * 1000 * 1000]
    prompt_file = project.parent / "prompt.md"
    prompt_file.write_text(big, encoding="utf-8")
    code, done = run_cli(
        "submit", "--prompt-file", str(prompt_file), "--provider", "test", "--wait", "src",
        cwd=project,
    )  # fmt: skip
    assert code == 0, done
    job = JobStore().load(done["job"]["id"])
    assert Path(job.prompt_path).read_text(encoding="utf-8") == big
    answer = Path(job.response_path).read_text(encoding="utf-8")
    assert answer.startswith("Test answer to: Ünïcode line") and len(answer) > 5_000_000

    code, done = run_cli(
        "followup", job.id, "--prompt-file", "-", "src", "--wait", cwd=project,
        stdin="from stdin ✓".encode(),
    )  # fmt: skip
    assert code == 0, done
    follow = JobStore().load(done["job"]["id"])
    assert follow.follow_up_to_job_id == job.id
    assert Path(follow.prompt_path).read_text(encoding="utf-8") == "from stdin ✓"


def test_prompt_and_prompt_file_are_mutually_exclusive(
    project: Path, session: str, capsys: pytest.CaptureFixture[str]
) -> None:
    prompt_file = project.parent / "q.txt"
    prompt_file.write_text("question")
    code, both = cli(capsys, "submit", "-p", "q", "--prompt-file", str(prompt_file), "src")
    assert code == 2 and both["error"]["code"] == "invalid_argument"
    assert "--prompt-file" in both["error"]["message"]
    code, neither = cli(capsys, "submit", "--provider", "test", "src")
    assert code == 2 and neither["error"]["code"] == "invalid_argument"
    code, neither = cli(capsys, "followup", "1m8my1yehch5w")
    assert code == 2 and neither["error"]["code"] == "invalid_argument"
    assert files_under(jobs_dir()) == []


def test_prompt_file_missing_or_unreadable_has_a_clear_code(
    project: Path, session: str, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = project.parent / "nope.md"
    code, error = cli(capsys, "submit", "--prompt-file", str(missing), "--provider", "test")
    assert code == 2 and error["error"]["code"] == "prompt_file_missing"
    assert error["error"]["rejectedValue"] == str(missing)
    code, error = cli(capsys, "submit", "--prompt-file", str(project), "--provider", "test")
    assert code == 2 and error["error"]["code"] == "prompt_file_unreadable"
    assert str(project) in error["error"]["message"]
    if os.geteuid() != 0:  # root reads a 0000 file anyway
        locked = project.parent / "locked.md"
        locked.write_text("q")
        locked.chmod(0)
        code, error = cli(capsys, "submit", "--prompt-file", str(locked), "--provider", "test")
        assert code == 2 and error["error"]["code"] == "prompt_file_unreadable"
    assert files_under(jobs_dir()) == []


@pytest.mark.parametrize("provider", ["chatgpt", "grok", "test"])
def test_prompt_over_the_provider_cap_is_prompt_too_large(
    project: Path, session: str, provider: str
) -> None:
    limit = provider_spec(provider).max_prompt_bytes
    assert limit >= 8 * MIB  # a 5 MB prompt (the example) must fit
    with pytest.raises(OracleError) as caught:
        submit("é" * (limit // 2) + "x", ["src"], provider=provider)
    error = caught.value
    assert error.code == "prompt_too_large" and error.exit_code == ExitCode.INVALID_INPUT
    assert error.details == {"bytes": limit + 1, "limit": limit}
    assert files_under(jobs_dir()) == []


def test_prompt_file_over_the_cap_is_refused_without_reading_it_all(
    project: Path, session: str, capsys: pytest.CaptureFixture[str]
) -> None:
    limit = provider_spec("test").max_prompt_bytes
    huge = project.parent / "huge.md"
    with huge.open("wb") as handle:
        handle.truncate(limit + 1)  # sparse: big on paper, free on disk
    code, error = cli(capsys, "submit", "--prompt-file", str(huge), "--provider", "test", "src")
    assert code == 2 and error["error"]["code"] == "prompt_too_large"
    assert error["error"]["details"] == {"bytes": limit + 1, "limit": limit}
    assert files_under(jobs_dir()) == []


# --- 3. clean of a running job ---------------------------------------------------------------


@pytest.mark.slow
def test_clean_of_a_running_job_is_clean_blocked_exit_5(
    project: Path, session: str, capsys: pytest.CaptureFixture[str]
) -> None:
    job = submit("hang", ["src"], provider="test", selection_extras={"outcome": "hang"}).job
    code, refused = cli(capsys, "clean", job["id"])
    assert code == ExitCode.BUSY == 5
    assert refused["error"]["code"] == "clean_blocked" and refused["error"]["retryable"] is True
    assert f"oraculum cancel {job['id']}" in refused["error"]["suggestedNextStep"]
    with pytest.raises(OracleError) as caught:  # the engine's own refusal says the same
        remove_job(job["id"])
    assert caught.value.code == "clean_blocked" and caught.value.retryable
    code, _ = cli(capsys, "cancel", job["id"])
    assert code == 0
    assert finished(job["id"]).status.value == "cancelled"


def test_readme_documents_clean_blocked_as_exit_5() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    busy = next(line for line in readme.splitlines() if line.startswith("| 5 |"))
    assert "`clean_blocked`" in busy
    assert "job_not_terminal" not in readme


# --- 4. bounded durations in the project config ----------------------------------------------


def int_fields(sections: tuple[str, ...]) -> set[str]:
    """The dotted keys of every integer setting (optional ones included) of ``sections``."""
    return {
        f"{section}.{info.alias or name}"
        for section in sections
        for name, info in SECTION_MODELS[section].model_fields.items()
        if info.annotation is int or int in get_args(info.annotation)
    }


def test_every_duration_and_count_of_the_project_file_is_bounded() -> None:
    assert set(PROJECT_MAXIMA) == int_fields(PROJECT_SECTIONS)
    for key, project_max in PROJECT_MAXIMA.items():
        low, high = field_range(key)
        assert low is not None and high is not None and low <= project_max <= high, key


def test_every_integer_setting_has_a_finite_global_bound() -> None:
    assert len(int_fields(tuple(SECTION_MODELS))) > len(PROJECT_MAXIMA)
    for key in int_fields(tuple(SECTION_MODELS)):
        low, high = field_range(key)
        assert low is not None and high is not None and high < 2**53, key


def write_project(root: Path, data: Any) -> Path:
    path = paths.project_config_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def refused(root: Path | None) -> OracleError:
    with pytest.raises(OracleError) as caught:
        load_config(root)
    assert caught.value.code == "oracle_config_invalid"
    return caught.value


@pytest.mark.parametrize("key", sorted(PROJECT_MAXIMA))
def test_project_config_duration_out_of_range_is_refused(
    oraculum_home: Path, tmp_path: Path, key: str
) -> None:
    section, name = key.split(".")
    low, _ = field_range(key)
    high = PROJECT_MAXIMA[key]
    for value in (high + 1, 20 * 365 * 24 * 3600 * 1000, -1):  # too large, decades, negative
        path = write_project(tmp_path, {section: {name: value}})
        error = refused(tmp_path)
        assert error.details == {"file": str(path), "key": key}
        assert key in error.message and json.dumps(value) in error.message
        assert f"between {low} and {high}" in error.message
    write_project(tmp_path, {section: {name: high}})
    config = load_config(tmp_path).config.to_json_dict()
    assert config[section][name] == high  # the bound itself is allowed


def test_global_config_may_go_wider_than_a_project_but_stays_finite(
    oraculum_home: Path, tmp_path: Path
) -> None:
    key = "worker.completionTimeoutMs"
    _, high = field_range(key)
    assert high is not None and high > PROJECT_MAXIMA[key]
    global_path = paths.global_config_path()
    global_path.parent.mkdir(parents=True, exist_ok=True)
    global_path.write_text(json.dumps({"worker": {"completionTimeoutMs": PROJECT_MAXIMA[key] + 1}}))
    assert load_config(tmp_path).config.worker.completion_timeout_ms == PROJECT_MAXIMA[key] + 1
    global_path.write_text(json.dumps({"worker": {"completionTimeoutMs": high + 1}}))
    error = refused(tmp_path)
    assert error.details == {"file": str(global_path), "key": key}
    assert f"between 1000 and {high}" in error.message
    # Deep Research runs for hours: a project may still allow a whole day.
    assert PROJECT_MAXIMA[key] >= 24 * 3600 * 1000


# --- 5. one rule for an explicitly empty job id ----------------------------------------------


BLANKS = ["", "   "]


@pytest.mark.parametrize("blank", BLANKS)
@pytest.mark.parametrize(
    "command",
    [
        ["status", "{}"],
        ["read", "{}"],
        ["wait", "{}", "--timeout", "0"],
        ["cancel", "{}"],
        ["clean", "{}"],
        ["followup", "{}", "and then?"],
        ["submit", "-p", "q", "--provider", "test", "--follow-up", "{}"],
        ["preflight", "--provider", "test", "--follow-up", "{}"],
    ],
    ids=lambda c: c[0] if isinstance(c, list) else None,
)
def test_empty_job_id_is_invalid_job_id_everywhere(
    project: Path,
    session: str,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
    blank: str,
) -> None:
    code, error = cli(capsys, *[blank if part == "{}" else part for part in command])
    assert code == ExitCode.INVALID_INPUT, error
    assert error["error"]["code"] == "invalid_job_id"
    assert files_under(jobs_dir()) == []


def test_omitted_job_id_keeps_each_commands_default(
    project: Path, session: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, recent = cli(capsys, "status")
    assert code == 0 and recent["jobs"] == []
    code, newest = cli(capsys, "read")
    assert code == 3 and newest["error"]["code"] == "job_not_found"  # "the newest": none yet
    code, waited = cli(capsys, "wait", "--timeout", "0")
    assert code == 5 and waited["error"]["code"] == "wait_timeout"  # the session's next job
    code, usage = cli(capsys, "cancel")
    assert code == 2 and usage["error"]["code"] == "invalid_argument"
    code, usage = cli(capsys, "clean")
    assert code == 2 and usage["error"]["code"] == "invalid_argument"


def mcp_server(project: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=str(ORACULUM),
        args=["mcp", "--session", "mcp-small"],
        env=dict(os.environ),
        cwd=str(project),
    )


@pytest.mark.slow
async def test_mcp_tools_refuse_empty_job_ids_and_bad_prompts(project: Path) -> None:
    async with Client(mcp_server(project)) as client:
        calls = [
            ("oracle_status", {"jobId": ""}),
            ("oracle_read", {"jobId": " "}),
            ("oracle_wait", {"jobId": "", "timeoutSeconds": 0}),
            ("oracle_cancel", {"jobId": ""}),
            ("oracle_preflight", {"provider": "test", "followUpJobId": ""}),
            (
                "oracle_submit",
                {"prompt": "q", "files": ["src"], "provider": "test", "followUpJobId": " "},
            ),
        ]
        for tool, arguments in calls:
            result = await client.call_tool(tool, arguments)
            assert result.is_error, (tool, result.content[0].text)
            assert result.structured_content["error"]["code"] == "invalid_job_id", tool

        limit = provider_spec("test").max_prompt_bytes
        too_large = await client.call_tool(
            "oracle_submit", {"prompt": "x" * (limit + 1), "files": ["src"], "provider": "test"}
        )
        assert too_large.is_error
        error = too_large.structured_content["error"]
        assert error["code"] == "prompt_too_large"
        assert error["details"] == {"bytes": limit + 1, "limit": limit}
    assert files_under(jobs_dir()) == []
