"""A real opencode (`opencode run`, pinned in tests/hosts/package.json) drives `oraculum mcp`
with the README's `opencode.json`, its model a scripted OpenAI-compatible chat endpoint
(issue 40 §3). opencode names the tools `oraculum_<tool>` and hands its model the text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import StartModel
from .host_scenario import (
    assert_oracle_conversation,
    run_oracle_conversation,
    tool_call,
)
from .native_hosts import Opencode

pytestmark = [pytest.mark.hosts, pytest.mark.slow]

SESSION = "opencode-hosts-1"


@pytest.fixture
def opencode(native_host: Callable[[str], Path], project: Path, tmp_path: Path) -> Opencode:
    return Opencode(binary=native_host("opencode"), root=tmp_path / "opencode", project=project)


def test_readme_opencode_entry_outlasts_a_wait(opencode: Opencode) -> None:
    """opencode times every MCP request out after the entry's `timeout` (5000 ms when unset):
    the README's entry must outlast `oracle_wait`'s longest call (50 s)."""
    entry = opencode.readme_config()["mcp"]["oraculum"]
    assert entry["type"] == "local" and entry["command"] == ["oraculum", "mcp"]
    assert entry["timeout"] >= 55_000


async def test_opencode_runs_the_oracle_conversation(
    opencode: Opencode, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    model = await run_oracle_conversation(
        opencode, tool_call(Opencode.PREFIX), oraculum_env, scripted_model, SESSION
    )
    assert_oracle_conversation(model, lambda tool: Opencode.PREFIX + tool)
