"""A real Claude Code (`claude -p`, pinned in tests/hosts/package.json) drives `oraculum mcp`
set up as the README's headless recipe says, its model a scripted Anthropic Messages endpoint
streaming `tool_use` blocks (issue 40 §3, §4)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import StartModel
from .host_scenario import (
    assert_oracle_conversation,
    run_oracle_conversation,
    server_environment,
    tool_call,
)
from .native_hosts import ClaudeCode, filled_command
from .scripted_model import Reply

pytestmark = [pytest.mark.hosts, pytest.mark.slow]

SESSION = "claude-hosts-1"


@pytest.fixture
def claude(native_host: Callable[[str], Path], project: Path, tmp_path: Path) -> ClaudeCode:
    return ClaudeCode(binary=native_host("claude"), root=tmp_path / "claude", project=project)


async def test_readme_claude_mcp_add_connects(claude: ClaudeCode) -> None:
    """The README's `claude mcp add` line, `oraculum` given by its path: Claude Code's own
    health check connects to the server."""
    argv = claude.readme_add_argv()
    assert argv[:3] == ["claude", "mcp", "add"], argv
    split = argv.index("--")
    added = await claude.command([*argv[1:split], "--", *filled_command(argv[split + 1 :])])
    assert added.returncode == 0, added.stderr

    listed = await claude.command(["mcp", "list"])

    assert listed.returncode == 0, listed.stderr
    assert "oraculum: " in listed.stdout and "Connected" in listed.stdout, listed.stdout


async def test_claude_code_runs_the_oracle_conversation(
    claude: ClaudeCode, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    model = await run_oracle_conversation(
        claude, tool_call(ClaudeCode.PREFIX), oraculum_env, scripted_model, SESSION
    )
    assert_oracle_conversation(model, lambda tool: ClaudeCode.PREFIX + tool)


async def test_claude_code_prompt_with_a_cut_request(
    claude: ClaudeCode, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    """`/mcp__oraculum__oracle review notes.txt and explain X` reaches the server as
    `{"request": "review"}`; the prompt's text quotes what arrived and tells the agent to take
    the whole request from the user's message, which the model also sees."""
    model = await scripted_model([Reply("Understood.")], side_without_tools=True)

    run = await claude.run(
        "/mcp__oraculum__oracle review notes.txt and explain X",
        model.base_url,
        server_environment(oraculum_env, SESSION),
    )

    assert run.returncode == 0, run.stderr[-3000:] + run.stdout[-3000:]
    said = model.transcript.user_text()
    assert "oracle_preflight" in said, said  # the dispatch workflow's text reached the model
    assert 'Only "review" arrived as the request argument' in said, said
    assert "Take the whole request from the user's message" in said, said
    # ... and that message, whole, is in the model's view.
    assert "review notes.txt and explain X" in said, said
