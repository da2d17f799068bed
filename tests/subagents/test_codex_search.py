"""codex_search with a fake `codex_search` on PATH that records its argv and stdin and can
sleep, fail or flood: the argv contract, the bounds, cancel and timeout, the missing helper."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from oraculum.codex.search import (
    FAILURE_NOTE,
    RESEARCH_NOTE,
    STDERR_TAIL_BYTES,
    STDOUT_HEAD_BYTES,
    plan_search,
    resolve_executable,
    run_search,
    search_argv,
)
from oraculum.core.errors import OracleError

from .support import codex_records, install_fake_codex, path_with, pid_alive


@pytest.fixture
def records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake helper first on PATH; its records land in the returned directory."""
    fake_bin = tmp_path / "bin"
    install_fake_codex(fake_bin)
    monkeypatch.setenv("PATH", path_with(fake_bin))
    out = tmp_path / "records"
    out.mkdir()
    monkeypatch.setenv("FAKE_CODEX_RECORDS", str(out))
    return out


def test_argv_is_literal_and_the_prompt_goes_on_stdin(records: Path, tmp_path: Path) -> None:
    prompt = "ok find the release notes; $(rm -rf /) `echo` \u2028 line"
    result = run_search(plan_search(prompt, cwd=tmp_path), threading.Event())
    [record] = codex_records(records)
    assert record["argv"][1:] == [
        "--profile",
        "quick",
        "--skip-git-repo-check",
        "--cd",
        str(tmp_path),
        "-",
    ]
    assert record["stdin"] == prompt
    assert record["cwd"] == str(tmp_path)
    assert result.ok and result.error_code is None
    assert result.text.startswith(f"answer to: {prompt}")
    assert result.text.endswith(RESEARCH_NOTE)
    assert not pid_alive(record["pid"])


def test_image_forces_research_and_yolo_only_when_set(tmp_path: Path) -> None:
    image = plan_search("a cat", image=True, write=True, cwd=tmp_path)
    assert image.effort == "research"
    assert search_argv("codex_search", image)[1:5] == [
        "--profile",
        "research",
        "--write",
        "--skip-git-repo-check",
    ]
    assert "--yolo" not in search_argv("codex_search", image)
    yolo = plan_search("x", effort="research", yolo=True, cwd=tmp_path)
    assert search_argv("codex_search", yolo)[1:5] == [
        "--profile",
        "research",
        "--yolo",
        "--skip-git-repo-check",
    ]


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"prompt": "a cat", "image": True}, "needs write: true"),
        ({"prompt": "x", "effort": "deep"}, "Unknown effort"),
        ({"prompt": "   "}, "non-blank"),
        ({"prompt": "x" * (64 * 1024 + 1)}, "bytes"),
    ],
)
def test_refusals_before_anything_runs(
    kwargs: dict[str, object], fragment: str, tmp_path: Path
) -> None:
    with pytest.raises(OracleError) as caught:
        plan_search(cwd=tmp_path, **kwargs)  # type: ignore[arg-type]
    assert caught.value.code == "invalid_argument"
    assert fragment in caught.value.message


def test_an_image_result_has_no_research_reminder(records: Path, tmp_path: Path) -> None:
    request = plan_search("ok draw a cat", image=True, write=True, cwd=tmp_path)
    result = run_search(request, threading.Event())
    assert result.ok and RESEARCH_NOTE not in result.text
    assert codex_records(records)[0]["argv"][1:4] == ["--profile", "research", "--write"]


def test_failure_keeps_the_stderr_tail_and_says_to_report_it(records: Path, tmp_path: Path) -> None:
    result = run_search(plan_search("fail now", cwd=tmp_path), threading.Event())
    assert not result.ok
    assert result.error_code == "codex_search_failed"
    assert result.data["exitCode"] == 3
    assert "the helper broke" in result.text and FAILURE_NOTE in result.text
    assert result.text.count("x") <= STDERR_TAIL_BYTES


def test_flooded_output_is_cut_to_its_head(records: Path, tmp_path: Path) -> None:
    result = run_search(plan_search("flood please", cwd=tmp_path), threading.Event())
    assert result.ok
    assert result.data["stdoutBytes"] == 200_000 and result.data["truncated"] is True
    assert result.text.split("\n\n")[0] == "y" * STDOUT_HEAD_BYTES
    assert f"cut at {STDOUT_HEAD_BYTES} of 200000 bytes" in result.text


def test_cancel_stops_the_helper_and_its_group(records: Path, tmp_path: Path) -> None:
    cancel = threading.Event()
    pids: list[int] = []

    def started(pid: int) -> None:
        pids.append(pid)
        cancel.set()  # the session ends as soon as the helper runs

    result = run_search(plan_search("sleep", cwd=tmp_path), cancel, on_start=started)
    assert not result.ok and result.error_code == "task_cancelled"
    assert not pid_alive(pids[0])


def test_timeout_stops_the_helper(records: Path, tmp_path: Path) -> None:
    pids: list[int] = []
    result = run_search(
        plan_search("sleep", cwd=tmp_path), threading.Event(), timeout_s=1, on_start=pids.append
    )
    assert not result.ok and result.error_code == "codex_search_timeout"
    assert "did not finish within 10 minutes" in result.text
    assert not pid_alive(pids[0])


def test_missing_helper_is_codex_search_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no codex_search
    with pytest.raises(OracleError) as caught:
        resolve_executable()
    assert caught.value.code == "codex_search_unavailable"
    with pytest.raises(OracleError) as again:
        run_search(plan_search("ok", cwd=tmp_path), threading.Event())
    assert again.value.code == "codex_search_unavailable"
