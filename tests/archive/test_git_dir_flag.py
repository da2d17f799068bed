"""The `.git` flag end to end: `oraculum submit`/`followup --include-git-dir`, the service, and
the MCP `oracle_submit` tool's `includeGitDir` (real workers, test provider)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from mcp.client.stdio import StdioServerParameters

from homes import finished
from mcp import Client
from oraculum.cli import main
from oraculum.core.errors import OracleError
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.submit import submit
from oraculum.service.summary import job_summary

from .support import git_init, tree_listing, write

pytestmark = pytest.mark.slow


def _git_project(project: Path) -> None:
    write(project, ".env", b"TOKEN=committed")
    git_init(project)


def _archived(job: dict, dest: Path) -> set[bytes]:
    from .support import extract

    return set(tree_listing(extract(Path(job["archivePath"]), dest)))


def test_submit_refuses_git_dir_without_flag(project: Path, tmp_path: Path) -> None:
    _git_project(project)
    with pytest.raises(OracleError) as info:
        submit("q", ["src", ".git"], caller=Caller(session="s"), provider="test")
    assert info.value.code == "archive_input_git_dir"
    assert JobStore().list_ids() == []  # refused before any job existed
    job = submit(
        "q", [".git"], caller=Caller(session="s"), provider="test", include_git_dir=True
    ).job
    assert b".git/HEAD" in _archived(job, tmp_path / "x")
    finished(job["id"])


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code = main(["--json", *args])
    return code, json.loads(capsys.readouterr().out)


def test_submit_and_followup_commands_take_include_git_dir(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _git_project(project)
    base = ["-p", "q", "--provider", "test", "--session", "s"]
    code, doc = _cli(capsys, "submit", *base, ".git/objects")
    assert code == 2
    assert doc["error"]["code"] == "archive_input_git_dir"
    code, doc = _cli(capsys, "submit", *base, "--include-git-dir", ".git")
    assert code == 0, doc
    first = doc["job"]
    assert b".git/HEAD" in _archived(first, tmp_path / "a")
    finished(first["id"])
    code, doc = _cli(capsys, "followup", first["id"], "again", "--session", "s", ".git")
    assert code == 2
    assert doc["error"]["code"] == "archive_input_git_dir"
    code, doc = _cli(
        capsys, "followup", first["id"], "again", "--session", "s", "--include-git-dir", ".git"
    )
    assert code == 0, doc
    assert b".git/HEAD" in _archived(doc["job"], tmp_path / "b")
    finished(doc["job"]["id"])


async def test_mcp_submit_takes_include_git_dir(project: Path, tmp_path: Path) -> None:
    _git_project(project)
    params = StdioServerParameters(
        command=str(Path(sys.executable).with_name("oraculum")),
        args=["mcp", "--session", "git-dir"],
        env=dict(os.environ),
        cwd=str(project),
    )
    async with Client(params) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        schema = tools["oracle_submit"].input_schema["properties"]
        assert schema["includeGitDir"]["type"] == "boolean"
        refused = await client.call_tool(
            "oracle_submit", {"prompt": "q", "files": [".git"], "provider": "test"}
        )
        assert refused.is_error
        assert refused.structured_content["error"]["code"] == "archive_input_git_dir"
        allowed = await client.call_tool(
            "oracle_submit",
            {"prompt": "q", "files": [".git"], "provider": "test", "includeGitDir": True},
        )
        assert not allowed.is_error, allowed.content[0].text
        job = job_summary(JobStore().load(allowed.structured_content["job"]["id"]))
        assert b".git/HEAD" in _archived(job, tmp_path / "x")
    finished(job["id"])
