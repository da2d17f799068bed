"""The scheduler's input checks: each bad input gets its code before anything is stored."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from oraculum.core.errors import OracleError
from oraculum.scheduler.validation import (
    MAX_DURATION_S,
    MAX_PROMPT_BYTES,
    Timing,
    parse_duration,
    validate_payload,
    validate_prompt,
    validate_timing,
)

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def code_of(call: Any) -> str:
    with pytest.raises(OracleError) as caught:
        call()
    return str(caught.value.code)


@pytest.mark.parametrize(
    ("timing", "code"),
    [
        ({"every": "1s", "bogus": 1}, "schedule_timing_invalid"),
        ({"count": 3}, "schedule_timing_invalid"),
        ({"in": "5 minutes"}, "schedule_timing_invalid"),
        ({"in": "5m", "at": "2027-01-01T00:00:00Z"}, "schedule_timing_invalid"),
        ({"cron": "0 9 * * *", "every": "1h"}, "schedule_timing_invalid"),
        ({"every": "0s"}, "schedule_timing_invalid"),
        ({"every": "1s", "count": 0}, "schedule_timing_invalid"),
        ({"every": "1s", "count": True}, "schedule_timing_invalid"),
        ({"tz": "UTC", "in": "1m"}, "schedule_timing_invalid"),
        ({"in": "1" * 1100 + "s"}, "schedule_timing_invalid"),
        ({"cron": "61 * * * *"}, "schedule_cron_invalid"),
        ({"cron": "every day"}, "schedule_cron_invalid"),
        ({"cron": "0 9 * * *", "tz": "Mars/Olympus"}, "schedule_timezone_unknown"),
        ({"cron": "0 9 * * *", "tz": "../../etc/passwd"}, "schedule_timezone_unknown"),
        ({"at": "2026-12-01T11:59:00Z"}, "schedule_time_past"),
        ({"at": "2026-12-01T12:00:00+00:00"}, "schedule_time_past"),
        ({"at": "tomorrow"}, "schedule_timing_invalid"),
        ({"at": "2027-01-01T09:00:00"}, "schedule_timing_invalid"),  # naive, no tz
        ("15m", "schedule_timing_invalid"),
    ],
)
def test_bad_timing_gets_its_code(timing: Any, code: str) -> None:
    assert code_of(lambda: validate_timing(timing, now=NOW)) == code


@pytest.mark.parametrize(
    "timing",
    [
        {"in": "99999999999d"},
        {"in": "3661d"},
        {"every": "99999999999d"},
        {"every": "3660d", "count": 100_000},
        {"at": "9999-12-31T00:00:00Z", "every": "1d", "count": 3},
        {"at": "2200-01-01T00:00:00Z"},
    ],
)
def test_durations_and_occurrences_beyond_their_bounds_are_invalid_argument(
    timing: dict[str, Any],
) -> None:
    assert code_of(lambda: validate_timing(timing, now=NOW)) == "invalid_argument"


def test_the_longest_durations_are_accepted() -> None:
    assert parse_duration("3660d", key="in") == MAX_DURATION_S
    late = validate_timing({"every": "3660d", "count": 10}, now=NOW)
    assert late.every_s == MAX_DURATION_S and late.count == 10


def test_timing_shapes() -> None:
    assert validate_timing(None, now=NOW) == Timing(kind="now")
    assert validate_timing({"in": "2s"}, now=NOW) == Timing("once", NOW + timedelta(seconds=2))
    every = validate_timing({"in": "1h", "every": "30m", "count": 4}, now=NOW)
    assert every == Timing("interval", NOW + timedelta(hours=1), every_s=1800, count=4)
    # Without in/at, the first of an interval comes one period from now.
    assert validate_timing({"every": "1s"}, now=NOW).start == NOW + timedelta(seconds=1)
    cron = validate_timing({"cron": "0 9 * * 1-5", "tz": "America/Sao_Paulo"}, now=NOW)
    assert (cron.kind, cron.cron, cron.tz) == ("cron", "0 9 * * 1-5", "America/Sao_Paulo")
    local = validate_timing({"at": "2027-01-01T09:00:00", "tz": "Europe/Berlin"}, now=NOW)
    assert local.start == datetime(2027, 1, 1, 8, 0, tzinfo=UTC)
    assert Timing.from_dict(every.to_dict()) == every


@pytest.mark.parametrize(
    ("text", "seconds"), [("2s", 2), ("15m", 900), ("1h30m", 5400), ("2d", 172800)]
)
def test_durations(text: str, seconds: int) -> None:
    assert parse_duration(text, key="in") == seconds


def test_prompt_limits() -> None:
    assert validate_prompt("é" * (MAX_PROMPT_BYTES // 2)) == "é" * (MAX_PROMPT_BYTES // 2)
    too_big = "é" * (MAX_PROMPT_BYTES // 2 + 1)  # 8,002 UTF-8 bytes, 4,001 characters
    assert code_of(lambda: validate_prompt(too_big)) == "prompt_too_large"
    assert code_of(lambda: validate_prompt("   ")) == "invalid_argument"
    assert code_of(lambda: validate_prompt(None)) == "invalid_argument"


@pytest.mark.parametrize(
    "payload",
    [
        {"executable": "./slow-check"},  # relative executable without cwd
        {"executable": "bin/check", "args": []},
        {"executable": ""},
        {"executable": "/bin/echo", "args": "hello world"},  # a shell string, not argv
        {"executable": "/bin/echo", "args": ["ok", 3]},
        {"executable": "/bin/echo", "args": ["x"] * 129},
        {"executable": "/bin/echo", "args": ["x" * 8001]},
        {"executable": "/bin/echo", "env": {"TOKEN": "secret"}},
        {"executable": "/bin/echo", "cwd": "no-such-dir"},
        {"executable": "/bin/e\x00cho"},
        "/bin/echo hello",
    ],
)
def test_bad_payload_is_refused(payload: Any, tmp_path: Path) -> None:
    assert code_of(lambda: validate_payload(payload, base=tmp_path)) == "schedule_payload_invalid"


def test_payload_cwd_resolves_against_the_base(tmp_path: Path) -> None:
    (tmp_path / "service").mkdir()
    script = tmp_path / "service" / "slow-check"
    script.write_text("#!/bin/sh\necho ok\n")
    script.chmod(0o755)
    payload = validate_payload(
        {"executable": "./slow-check", "args": ["--format", "json"], "cwd": "./service"},
        base=tmp_path,
    )
    assert payload is not None
    assert payload.cwd == str((tmp_path / "service").resolve())
    assert payload.args == ("--format", "json")
    bare = validate_payload({"executable": "echo"}, base=tmp_path)  # found on PATH at run time
    assert bare is not None and bare.cwd is None
    assert validate_payload(None, base=tmp_path) is None


@pytest.mark.parametrize(
    ("executable", "hint"),
    [("/no/such/tool", None), ("no-such-tool-anywhere", None), ("ls -la | head", "bash -c")],
)
def test_a_payload_whose_executable_does_not_exist_is_refused(
    tmp_path: Path, executable: str, hint: str | None
) -> None:
    """Issue 38 §11: nothing is scheduled that could only fail when it fires; a shell command
    line given as the executable gets the `bash -c` hint."""
    with pytest.raises(OracleError) as caught:
        validate_payload({"executable": executable}, base=tmp_path)
    assert caught.value.code == "schedule_payload_invalid"
    assert "does not exist" in caught.value.message
    step = caught.value.suggested_next_step or ""
    assert (hint in step) if hint else ("bash -c" not in step)
