"""`codex_search` over a real `oraculum mcp` server (stdio) with the fake helper on PATH: one
notice per search, at most four at once, aborted with the session, refusals as tool errors."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp.client.stdio import StdioServerParameters

from homes import write_fast_config
from mcp import Client
from oraculum.core.project import project_id
from oraculum.tasks import NoticeStore

from .support import codex_records, eventually, install_fake_codex, path_with, pid_alive

ORACULUM = str(Path(sys.executable).with_name("oraculum"))


def _params(project: Path, session: str, env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(
        command=ORACULUM,
        args=["mcp", "--session", session, "--profile", "research"],
        env=env,
        cwd=str(project),
    )


@pytest.fixture
def fake_env(project: Path, tmp_path: Path) -> dict[str, str]:
    install_fake_codex(tmp_path / "bin")
    records = tmp_path / "records"
    records.mkdir()
    write_fast_config({"poller": {"intervalMs": 100}})
    return {
        **os.environ,
        "PATH": path_with(tmp_path / "bin"),
        "FAKE_CODEX_RECORDS": str(records),
    }


@pytest.mark.slow
async def test_one_search_delivers_exactly_one_notice(
    project: Path, fake_env: dict[str, str]
) -> None:
    async with Client(_params(project, "searcher", fake_env)) as client:
        started = await client.call_tool("codex_search", {"prompt": "ok who wrote it?"})
        assert not started.is_error, started.content[0].text
        task_id = started.structured_content["taskId"]
        done = await client.call_tool("oracle_wait", {"timeoutSeconds": 45})
        later = await client.call_tool("oracle_wait", {"timeoutSeconds": 1})
    [notice] = done.structured_content["wakeups"]
    assert notice["kind"] == "codex_search"
    assert task_id in notice["text"] and notice["status"] == "complete"
    assert "answer to: ok who wrote it?" in done.content[0].text
    assert "wakeups" not in later.structured_content  # delivered once


@pytest.mark.slow
async def test_four_at_once_and_the_session_end_aborts_them(
    project: Path, fake_env: dict[str, str], tmp_path: Path
) -> None:
    async with Client(_params(project, "searcher", fake_env)) as client:
        for _ in range(4):
            started = await client.call_tool("codex_search", {"prompt": "sleep"})
            assert not started.is_error, started.content[0].text
        records_dir = tmp_path / "records"
        await eventually(lambda: len(codex_records(records_dir)) == 4)  # all four run
        fifth = await client.call_tool("codex_search", {"prompt": "sleep"})
        image = await client.call_tool("codex_search", {"prompt": "a cat", "image": True})
    assert fifth.is_error and fifth.structured_content["error"]["code"] == "background_limit"
    assert image.is_error and image.structured_content["error"]["code"] == "invalid_argument"
    records = codex_records(tmp_path / "records")
    assert len(records) == 4
    assert not any(pid_alive(r["pid"]) for r in records)
    notices = list(NoticeStore().notices(project_id(project)))
    assert len(notices) == 4
    assert {n.data["errorCode"] for n in notices} == {"task_cancelled"}


@pytest.mark.slow
async def test_missing_helper_is_refused_at_once(project: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PATH": str(Path(sys.executable).parent)}  # no codex_search there
    async with Client(_params(project, "searcher", env)) as client:
        refused = await client.call_tool("codex_search", {"prompt": "ok"})
    assert refused.is_error
    assert refused.structured_content["error"]["code"] == "codex_search_unavailable"
