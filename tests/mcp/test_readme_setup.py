"""The README's MCP set-up, followed literally: its JSON server entry (Cursor / pi) launches a
server that answers a dry run."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp.client.stdio import StdioServerParameters

from mcp import Client
from readme_snippets import agent_section, readme_server_entries

pytestmark = pytest.mark.slow

# The README starts `oraculum` from PATH (a pipx / uv tool install puts it there).
COMMAND = "oraculum"


async def test_readme_json_entry_works(project: Path) -> None:
    entries = readme_server_entries()
    # Cursor and pi start the same command (pi's entry adds pi's own fields: tests/hosts).
    entry = entries[0]
    assert all((e["command"], e["args"]) == (entry["command"], entry["args"]) for e in entries)
    assert entry["command"] == COMMAND
    # The entry as written, with this venv's `oraculum` first on PATH as an installed tool is.
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    params = StdioServerParameters(
        command=entry["command"], args=entry["args"], env=env, cwd=str(project)
    )
    async with Client(params) as client:
        ready = await client.call_tool("oracle_preflight", {"provider": "test"})
        assert not ready.is_error, ready.content[0].text
        submitted = await client.call_tool(
            "oracle_submit", {"prompt": "hello", "files": ["."], "provider": "test"}
        )
        job = submitted.structured_content["job"]["id"]
        waited = await client.call_tool("oracle_wait", {"jobId": job, "timeoutSeconds": 30})
        assert waited.structured_content["done"] is True
        assert f"Oracle job {job} is complete." in waited.content[0].text


def test_readme_names_every_client() -> None:
    section = agent_section()
    for client in ("Claude Code", "Codex", "Cursor", "pi-mcp-adapter"):
        assert client in section
    assert "claude mcp add oraculum -- oraculum mcp" in section
