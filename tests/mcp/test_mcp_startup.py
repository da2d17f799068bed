"""Start-up (issue 15 §8, issue 40 §2): `oraculum mcp` answers `initialize` and
`server/discover` before loading the SDK, and each answer is the SDK server's own. How long it
takes is measured by bench/mcp_startup.py."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from fresh_process import loaded_modules
from oraculum.mcp.identity import (
    HANDSHAKE_VERSIONS,
    MODERN_VERSIONS,
    discover_result,
    initialize_result,
)
from oraculum.mcp.stdio import early_answer

from .support import ORACULUM, mcp_client, text_of


def initialize(version: str, message_id: object = 1) -> bytes:
    params = {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    return (
        json.dumps(
            {"jsonrpc": "2.0", "id": message_id, "method": "initialize", "params": params}
        ).encode()
        + b"\n"
    )


def envelope(version: str = "2026-07-28", **extra: Any) -> dict[str, Any]:
    """A 2026-07-28 request's `_meta`, as the SDK's and Claude Code's clients send it."""
    return {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
        **extra,
    }


def request(message_id: object, method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": message_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode() + b"\n"


def discover(message_id: object = 1, version: str = "2026-07-28") -> bytes:
    return request(message_id, "server/discover", {"_meta": envelope(version)})


def test_opening_versions_are_the_sdks() -> None:
    assert tuple(HANDSHAKE_PROTOCOL_VERSIONS) == HANDSHAKE_VERSIONS
    assert tuple(MODERN_PROTOCOL_VERSIONS) == MODERN_VERSIONS


def test_early_answer_only_for_a_well_formed_opening() -> None:
    message_id, result = early_answer(initialize("2025-06-18", "a") + b'{"jsonrpc"') or (
        None,
        None,
    )
    assert message_id == "a" and result == initialize_result("2025-06-18")
    assert early_answer(initialize("1999-01-01"))[1]["protocolVersion"] == "2025-11-25"  # type: ignore[index]
    assert early_answer(b'{"jsonrpc": "2.0", "id": 1, "method": "initialize"}\n') is None
    assert early_answer(initialize("2025-06-18", True)) is None
    assert early_answer(b"not json\n") is None
    assert early_answer(discover(9)) == (9, discover_result())
    no_client_info = {"_meta": {k: v for k, v in envelope().items() if "clientInfo" not in k}}
    assert early_answer(request(2, "server/discover", no_client_info)) == (2, discover_result())
    # Not answered early: the SDK answers (or refuses) them itself.
    assert early_answer(request(1, "server/discover")) is None  # no envelope: not 2026-07-28
    assert early_answer(discover(1, "2099-01-01")) is None  # the SDK's -32022 names its versions
    no_caps = {"_meta": {k: v for k, v in envelope().items() if "Capabilities" not in k}}
    assert early_answer(request(1, "server/discover", no_caps)) is None
    bad_client = {"_meta": envelope(**{"io.modelcontextprotocol/clientInfo": "me"})}
    assert early_answer(request(1, "server/discover", bad_client)) is None
    assert early_answer(request(1, "tools/list", {"_meta": envelope()})) is None


def test_entry_loads_no_sdk(tmp_path: Path) -> None:
    loaded = loaded_modules(tmp_path, "import oraculum.cli.mcp_cmd, oraculum.mcp.stdio")
    heavy = [m for m in loaded if m.split(".")[0] in ("mcp", "mcp_types", "pydantic", "anyio")]
    assert heavy == [] and "oraculum.mcp.server" not in loaded


SDK_DELAY_S = 4.0
# A site hook that holds the first import of the MCP SDK back, as a loaded machine does (2.5-7 s
# seen): an answer that comes sooner cannot have come from the SDK.
SLOW_SDK = f"""
import sys, time

class _SlowSdk:
    def find_spec(self, name, path=None, target=None):
        if name == "mcp":
            sys.meta_path.remove(self)
            time.sleep({SDK_DELAY_S})
        return None

sys.meta_path.insert(0, _SlowSdk())
"""

# What each protocol era's client sends first, then once it has the answer.
OPENINGS = {
    "initialize": (
        initialize("2025-06-18", 7),
        initialize_result("2025-06-18"),
        [
            json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode() + b"\n",
            request(8, "tools/list"),
            request(9, "prompts/list"),
        ],
    ),
    "server/discover": (
        discover(7),
        discover_result(),
        [
            request(8, "tools/list", {"_meta": envelope()}),
            request(9, "prompts/list", {"_meta": envelope()}),
        ],
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("opening", list(OPENINGS))
def test_the_opening_is_answered_before_the_sdk_loads(
    project: Path, tmp_path: Path, opening: str
) -> None:
    """A raw client in either protocol era (Claude Code opens with `server/discover`, pi and the
    Inspector with `initialize`), its server's SDK import held back: the opening is answered
    at once, exactly as the SDK answers it (the entry compares, and would log "differed"), and
    every later answer comes once, none of them an error."""
    hook = tmp_path / "slow-sdk"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(SLOW_SDK)
    first, expected, after = OPENINGS[opening]
    began = time.monotonic()
    server = subprocess.Popen(
        [ORACULUM, "mcp", "--session", "raw"],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(hook)},
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(first)
    server.stdin.flush()
    answer = json.loads(server.stdout.readline())
    answered_s = time.monotonic() - began
    server.stdin.write(b"".join(after))
    server.stdin.flush()
    answers = [json.loads(server.stdout.readline()) for _ in range(2)]
    listed_s = time.monotonic() - began
    server.stdin.close()  # the client leaves: the server must end cleanly
    assert server.wait(60) == 0
    rest, stderr = server.stdout.read(), server.stderr.read()  # type: ignore[union-attr]
    assert answer == {"jsonrpc": "2.0", "id": 7, "result": expected}
    assert answered_s < SDK_DELAY_S / 2 < SDK_DELAY_S <= listed_s, (answered_s, listed_s)
    assert [a["id"] for a in answers] == [8, 9] and all("error" not in a for a in answers)
    tools = {tool["name"] for tool in answers[0]["result"]["tools"]}
    assert {"oracle_preflight", "oracle_submit", "oracle_wait", "oracle_read"} <= tools
    assert {p["name"] for p in answers[1]["result"]["prompts"]} == {"oracle", "oracle-followup"}
    assert rest == b""
    assert b"differed" not in stderr and b"Traceback" not in stderr, stderr.decode()


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_sdk_clients_of_either_era_connect_through_the_early_answer(
    project: Path, tmp_path: Path, mode: str
) -> None:
    """The official client: `auto` probes `server/discover` first (and would fall back to
    `initialize` on any error), `legacy` opens with `initialize`."""
    stderr = tmp_path / "server.err"
    async with mcp_client(project, "--session", mode, stderr=stderr, mode=mode) as client:
        expected = MODERN_VERSIONS[-1] if mode == "auto" else HANDSHAKE_VERSIONS[-1]
        assert client.protocol_version == expected
        ready = await client.call_tool("oracle_preflight", {"provider": "test"})
        assert not ready.is_error, text_of(ready)
    assert "differed" not in stderr.read_text()
    assert "Traceback" not in stderr.read_text()


DEEP = b"[" * 200_000 + b"]" * 200_000 + b"\n"


def test_a_deeply_nested_first_line_is_not_answered_early() -> None:
    assert early_answer(DEEP + initialize("2025-06-18")) is None  # no RecursionError


@pytest.mark.slow
def test_a_deeply_nested_line_does_not_crash_the_server(project: Path) -> None:
    """A JSON line nested 200,000 deep was an internal_error that ended the server; the
    server now reads past it and answers the initialize that follows."""
    done = subprocess.run(
        [ORACULUM, "mcp", "--session", "deep"],
        cwd=project,
        input=DEEP + initialize("2025-06-18", 3),
        capture_output=True,
        timeout=60,
        check=False,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a.get("id") for a in answers if "result" in a] == [3], answers
    assert b"Traceback" not in done.stderr and b"internal_error" not in done.stderr
