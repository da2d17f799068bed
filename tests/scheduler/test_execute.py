"""One payload, run for real: the environment allowlist, outcomes, output files and previews."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from oraculum.processes.lineage import MARK_ENV
from oraculum.scheduler.execute import payload_env, preview, run_payload
from oraculum.scheduler.validation import Payload


def run(tmp_path: Path, *argv: str, timeout_s: float = 30.0) -> tuple[str, Path, Path]:
    out, err = tmp_path / "runs" / "1.stdout", tmp_path / "runs" / "1.stderr"
    outcome = run_payload(
        Payload(argv[0], tuple(argv[1:]), str(tmp_path)),
        stdout=out,
        stderr=err,
        timeout_s=timeout_s,
    )
    return str(outcome.to_dict()), out, err


def test_only_allowlisted_variables_reach_the_payload(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "not-for-payloads")
    monkeypatch.setenv("TZ", "Europe/Berlin")
    _, out, _ = run(tmp_path, "/usr/bin/env")
    names = {line.split("=", 1)[0] for line in out.read_text().splitlines()}
    assert "GITHUB_TOKEN" not in names
    assert {"PATH", "TZ"} <= names
    # Only the mark its descendants are found by is added (see processes.lineage).
    assert names - set(payload_env(os.environ)) == {MARK_ENV}
    assert payload_env({"HOME": "/h", "AWS_SECRET_ACCESS_KEY": "x"}) == {"HOME": "/h"}


def test_outcomes(tmp_path: Path) -> None:
    assert run(tmp_path, "/bin/sh", "-c", "exit 7")[0] == "{'kind': 'exit', 'exit_code': 7}"
    assert run(tmp_path, "/bin/sh", "-c", "kill -TERM $$")[0] == (
        "{'kind': 'signal', 'signal': 'SIGTERM'}"
    )
    missing, _, _ = run(tmp_path, "/no/such/tool")
    assert "start_error" in missing and "FileNotFoundError" in missing
    # A payload past its timeout is stopped with its whole process group.
    timed_out, _, _ = run(tmp_path, "/bin/sh", "-c", "sleep 30 & wait", timeout_s=0.5)
    assert "timeout" in timed_out


def test_output_files_are_private_and_previews_bounded(tmp_path: Path) -> None:
    # 1 + 2 x 3000 bytes: the 4,000-byte head ends inside an "é", which is dropped.
    script = "import sys; print('a' + 'é' * 3000, end=''); print('e', file=sys.stderr)"
    _, out, err = run(tmp_path, sys.executable, "-c", script)
    assert oct(out.stat().st_mode & 0o777) == "0o600"
    assert oct(out.parent.stat().st_mode & 0o777) == "0o700"
    assert preview(out) == {"preview": "a" + "é" * 1999, "truncated": True}
    assert len(out.read_bytes()) == 6001  # the file keeps everything
    assert preview(err) == {"preview": "e\n", "truncated": False}
    assert preview(tmp_path / "missing") == {"preview": "", "truncated": False}


def _alive(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


# Double-forks out of the payload's session (`setsid -f`), writes its pid, sleeps.
ESCAPES = "setsid -f sh -c 'echo $$ > escapee.pid; exec sleep 120'; exec sleep 120"


def test_a_payloads_setsid_child_does_not_survive_the_timeout(tmp_path: Path) -> None:
    timed_out, _, _ = run(tmp_path, "/bin/sh", "-c", ESCAPES, timeout_s=1.0)
    assert "timeout" in timed_out
    escapee = int((tmp_path / "escapee.pid").read_text())
    try:
        assert not _alive(escapee)
    finally:
        if _alive(escapee):
            os.kill(escapee, 9)
