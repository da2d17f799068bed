"""A real Codex (`codex exec`, pinned in tests/hosts/package.json) drives `oraculum mcp` with
the README's `[mcp_servers.oraculum]` table, its model a scripted OpenAI Responses endpoint
(issue 40 §3). Codex declares the tools in the namespace `mcp__oraculum` and calls them there."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import StartModel
from .host_scenario import (
    assert_oracle_conversation,
    run_oracle_conversation,
    server_environment,
    tool_call,
)
from .native_hosts import Codex
from .scripted_model import Reply

pytestmark = [pytest.mark.hosts, pytest.mark.slow]

SESSION = "codex-hosts-1"


@pytest.fixture
def codex(native_host: Callable[[str], Path], project: Path, tmp_path: Path) -> Codex:
    return Codex(binary=native_host("codex"), root=tmp_path / "codex", project=project)


def test_readme_codex_table_passes_the_server_its_variables(
    codex: Codex, oraculum_env: dict[str, str]
) -> None:
    """Codex gives a server a reduced environment: the README's `env_vars` must name every
    variable the tests (and a user) set for oraculum."""
    table = codex.readme_table()
    assert table["required"] is True
    assert table["default_tools_approval_mode"] == "approve"
    assert {*oraculum_env, "ORACULUM_SESSION"} <= set(table["env_vars"])
    assert table["tool_timeout_sec"] >= 60


async def test_codex_runs_the_oracle_conversation(
    codex: Codex, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    model = await run_oracle_conversation(
        codex, tool_call("", namespace=Codex.NAMESPACE), oraculum_env, scripted_model, SESSION
    )
    assert_oracle_conversation(model, lambda tool: tool)
    (namespace,) = [t for t in model.requests[0]["tools"] if t.get("name") == Codex.NAMESPACE]
    assert {"oracle_submit", "oracle_wait"} <= {t["name"] for t in namespace["tools"]}


SUBMIT = {"prompt": "q", "files": ["."], "provider": "test"}


@pytest.mark.parametrize(
    ("left_out", "call", "arguments", "expected"),
    [
        ("env_vars", "oracle_preflight", {"provider": "test"}, "home/.local/state/oraculum/jobs"),
        ("default_tools_approval_mode", "oracle_submit", SUBMIT, "requires approval"),
    ],
)
async def test_codex_needs_the_readme_table_keys(
    codex: Codex,
    oraculum_env: dict[str, str],
    scripted_model: StartModel,
    left_out: str,
    call: str,
    arguments: dict[str, Any],
    expected: str,
) -> None:
    """Why the README's table has these keys: without `env_vars` the server never sees the
    ORACULUM_* variables of Codex's environment (its jobs go to the default place under HOME),
    and without `default_tools_approval_mode` `codex exec` refuses `oracle_submit`."""
    model = await scripted_model(
        [tool_call("", namespace=Codex.NAMESPACE)(call, arguments), Reply("Done.")],
        side_without_tools=True,
    )

    run = await codex.run(
        "Consult the oracle.",
        model.base_url,
        server_environment(oraculum_env, SESSION),
        without=(left_out,),
    )

    assert run.returncode == 0, run.stderr[-3000:]
    (result,) = model.transcript.results_of(call)
    assert expected in result, result
