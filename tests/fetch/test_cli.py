"""`oraculum fetch`: refusals in the documented JSON shape and exit codes, before any browser."""

from __future__ import annotations

import json

import pytest

from oraculum.cli import main


@pytest.mark.parametrize(
    ("url", "code", "exit_code"),
    [
        ("http://127.0.0.1:8080/", "fetch_address_blocked", 2),
        ("http://0x7f000001/", "fetch_address_blocked", 2),
        ("http://[::1]/", "fetch_address_blocked", 2),
        ("http://169.254.169.254/latest/meta-data/", "fetch_address_blocked", 2),
        ("file:///etc/passwd", "fetch_url_invalid", 2),
        ("http://user:secret@example.org/", "fetch_url_invalid", 2),
    ],
)
def test_refusals_are_json_errors_with_their_exit_code(
    capsys: pytest.CaptureFixture[str], url: str, code: str, exit_code: int
) -> None:
    assert main(["--json", "fetch", url]) == exit_code
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["code"] == code
    assert error["retryable"] is False


def test_the_command_is_listed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fetch", "--help"]) == 0
    assert "Render a public web page" in capsys.readouterr().out
