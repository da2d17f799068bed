"""Start-up (issue 15 §8): `oraculum mcp` answers `initialize` before loading the SDK, and that
answer is the SDK server's own. How long it takes is measured by bench/mcp_startup.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from oraculum.mcp.identity import HANDSHAKE_VERSIONS, initialize_result
from oraculum.mcp.stdio import early_initialize

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


def test_handshake_versions_are_the_sdks() -> None:
    assert tuple(HANDSHAKE_PROTOCOL_VERSIONS) == HANDSHAKE_VERSIONS


def test_early_answer_only_for_a_well_formed_initialize() -> None:
    message_id, result = early_initialize(initialize("2025-06-18", "a") + b'{"jsonrpc"') or (
        None,
        None,
    )
    assert message_id == "a" and result == initialize_result("2025-06-18")
    assert early_initialize(initialize("1999-01-01"))[1]["protocolVersion"] == "2025-11-25"  # type: ignore[index]
    assert early_initialize(b'{"jsonrpc": "2.0", "id": 1, "method": "server/discover"}\n') is None
    assert early_initialize(b'{"jsonrpc": "2.0", "id": 1, "method": "initialize"}\n') is None
    assert early_initialize(initialize("2025-06-18", True)) is None
    assert early_initialize(b"not json\n") is None


def test_entry_loads_no_sdk(tmp_path: Path) -> None:
    listing = tmp_path / "modules.json"
    code = (
        "import json, sys, oraculum.cli.mcp_cmd, oraculum.mcp.stdio\n"
        "open(sys.argv[1], 'w').write(json.dumps(list(sys.modules)))"
    )
    subprocess.run([sys.executable, "-c", code, str(listing)], check=True, timeout=60)
    loaded = set(json.loads(listing.read_text()))
    heavy = [m for m in loaded if m.split(".")[0] in ("mcp", "mcp_types", "pydantic", "anyio")]
    assert heavy == [] and "oraculum.mcp.server" not in loaded


@pytest.mark.slow
def test_early_answer_is_the_sdk_servers_answer(project: Path, tmp_path: Path) -> None:
    """The raw handshake, as pi and the Inspector send it: the answer comes once, and the
    server's own answer (dropped) said the same thing, or the entry would have logged it."""
    requests = initialize("2025-06-18", 7) + b"".join(
        json.dumps(m).encode() + b"\n"
        for m in (
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 8, "method": "tools/list"},
        )
    )
    server = subprocess.Popen(
        [ORACULUM, "mcp", "--session", "raw"],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(requests)
    server.stdin.flush()
    answers = [json.loads(server.stdout.readline()) for _ in range(2)]
    server.stdin.close()  # the client leaves: the server must end cleanly
    assert server.wait(60) == 0
    rest, stderr = server.stdout.read(), server.stderr.read()  # type: ignore[union-attr]
    assert answers[0] == {"jsonrpc": "2.0", "id": 7, "result": initialize_result("2025-06-18")}
    assert answers[1]["id"] == 8 and len(answers[1]["result"]["tools"]) == 8
    assert rest == b""
    assert b"differed" not in stderr and b"Traceback" not in stderr, stderr.decode()


@pytest.mark.slow
async def test_legacy_client_works_through_the_early_answer(project: Path, tmp_path: Path) -> None:
    stderr = tmp_path / "server.err"
    async with mcp_client(project, "--session", "legacy", stderr=stderr, mode="legacy") as client:
        assert client.protocol_version == HANDSHAKE_VERSIONS[-1]
        ready = await client.call_tool("oracle_preflight", {"provider": "test"})
        assert not ready.is_error, text_of(ready)
    assert "differed" not in stderr.read_text()


DEEP = b"[" * 200_000 + b"]" * 200_000 + b"\n"


def test_a_deeply_nested_first_line_is_not_answered_early() -> None:
    assert early_initialize(DEEP + initialize("2025-06-18")) is None  # no RecursionError


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
