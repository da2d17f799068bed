"""An exception no layer turned into an OracleError (issue 13 §4): the CLI and the MCP server
report it in the normal error shape as `internal_error` (an unmapped OSError as `disk_full` /
`io_error`), never as a traceback, and keep the traceback in a private log file."""

from __future__ import annotations

import errno
import json
import stat
from pathlib import Path

import pytest

from mcp import Client
from oraculum.cli import main
from oraculum.core.errors import ExitCode
from oraculum.core.paths import state_dir


def _boom(*_args: object, **_kwargs: object) -> None:
    raise RuntimeError("boom from a bug")


def assert_private_log(path: str, *needles: str) -> None:
    log = Path(path)
    assert log.parent == state_dir() / "logs"
    assert log.name.startswith("internal-") and log.name.endswith(".log")
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert stat.S_IMODE(log.parent.stat().st_mode) == 0o700
    text = log.read_text()
    assert "Traceback (most recent call last)" in text
    for needle in needles:
        assert needle in text


def test_cli_unexpected_exception_is_internal_error(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("oraculum.service.status.status", _boom)

    code = main(["--json", "status"])
    out, err = capsys.readouterr()
    assert code == ExitCode.FAILED
    assert "Traceback" not in out + err
    error = json.loads(out)["error"]
    assert error["code"] == "internal_error"
    assert "RuntimeError: boom from a bug" in error["message"]
    assert error["details"]["log"] in error["message"]
    assert error["details"]["exception"] == "RuntimeError"
    assert_private_log(error["details"]["log"], "boom from a bug", "_boom", "argv: ")

    code = main(["status"])  # the human shape: one line and the next step, on stderr
    out, err = capsys.readouterr()
    assert code == ExitCode.FAILED
    assert out == "" and "Traceback" not in err
    assert err.startswith("error[internal_error]: An unexpected internal error occurred")
    assert "next step: Report it as a bug with that log file" in err
    # The second crash's own log: in the same millisecond as the first it is named `…-1.log`,
    # which sorts before the first's name, so it is found by elimination, not by order.
    logs = set((state_dir() / "logs").iterdir())
    assert len(logs) == 2
    (second,) = logs - {Path(error["details"]["log"])}
    assert str(second) in err


def test_cli_unmapped_oserror_keeps_its_precise_code(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(*_args: object, **_kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", "/var/full/file")

    monkeypatch.setattr("oraculum.service.status.status", full)
    code = main(["--json", "status"])
    out, err = capsys.readouterr()
    assert code == ExitCode.NOT_READY and "Traceback" not in err
    error = json.loads(out)["error"]
    assert error["code"] == "disk_full"
    assert error["details"]["path"] == "/var/full/file"
    assert error["details"]["errno"] == "ENOSPC"
    assert_private_log(error["details"]["log"], "No space left on device")


async def test_mcp_unexpected_exception_is_internal_error(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from oraculum.mcp.server import OracleMcp, build_server

    monkeypatch.setattr("oraculum.mcp.families.oracle.status", _boom)
    state = OracleMcp("mcp-internal", cwd=project)
    async with Client(build_server(state)) as client:
        result = await client.call_tool("oracle_status", {})
    assert result.is_error
    error = result.structured_content["error"]
    assert error["code"] == "internal_error"
    assert result.content[0].text.startswith("[internal_error] An unexpected internal error")
    assert_private_log(error["details"]["log"], "boom from a bug", "mcp oracle_status")
