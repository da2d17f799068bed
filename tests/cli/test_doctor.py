"""`oraculum doctor` offline: each finding named with its status and next step, the JSON shape,
the exit code, and that doctor changes nothing (no directory made, no lease or leftover
removed)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from homes import write_global_config
from oraculum.cli import main
from oraculum.core.config import Config, seed_profile_dir
from oraculum.core.paths import global_config_path, jobs_dir
from oraculum.jobs import leases
from oraculum.jobs.store import STAGING_DIR, JobStore

pytestmark = pytest.mark.browser  # the offline checks launch Chromium once


@pytest.fixture
def fresh(tmp_path: Path, oraculum_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project in a home where nothing exists yet: no config, no directories, no seed."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text("")
    monkeypatch.chdir(root)
    return root


def doctor_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["--json", "doctor", *args])
    return code, json.loads(capsys.readouterr().out)


def by_name(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["check"]: c for c in report["checks"]}


def test_doctor_in_a_fresh_home_names_the_missing_seed(
    fresh: Path, oraculum_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = doctor_json(capsys)

    assert code == 4
    assert report["ok"] is False and report["provider"] == "chatgpt"
    assert "live" not in report
    checks = by_name(report)
    seed = checks["seed profile"]
    assert (seed["status"], seed["code"]) == ("fail", "auth_seed_profile_missing")
    assert "oraculum auth" in seed["nextStep"]
    assert [c["check"] for c in report["checks"] if c["status"] == "fail"] == ["seed profile"]
    for name in ("jobs dir", "state dir", "data dir", "runtime profiles dir"):
        assert checks[name]["status"] == "warn"
        assert "does not exist yet" in checks[name]["detail"]
    for name in ("config", "chromium", "chromium launch", "stale leases", "staging leftovers"):
        assert checks[name]["status"] == "ok", checks[name]
    assert checks["capacity"]["detail"] == "Capacity: 0/2 active, 0/2 queued (global)."
    assert "archive hot path" not in checks  # one Python archive path: nothing to check
    assert report["error"]["code"] == "doctor_failed"
    assert report["error"]["details"] == {"failed": ["seed profile"]}
    assert report["error"]["suggestedNextStep"] == seed["nextStep"]
    # Every check has the documented keys, and nothing else.
    for check in report["checks"]:
        assert set(check) <= {"check", "status", "detail", "nextStep", "code"}
        assert check["status"] in ("ok", "warn", "fail")
    # Doctor reports; it made nothing.
    assert not oraculum_home.exists()


def test_doctor_human_output_lists_every_check_and_exits_4(
    fresh: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["doctor"])
    out, err = capsys.readouterr()
    assert code == 4
    assert "FAIL  seed profile:" in out and "next step: Run `oraculum auth chatgpt`" in out
    assert "ok    chromium launch:" in out and "doctor (chatgpt): problems found" in out
    assert "error[doctor_failed]" in err


def test_doctor_live_without_a_seed_does_not_open_the_page(
    fresh: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = doctor_json(capsys, "--live")
    assert code == 4 and "live" not in report
    assert by_name(report)["live page"]["status"] == "warn"
    assert "Not opened" in by_name(report)["live page"]["detail"]


def test_doctor_reports_stale_leases_and_staging_leftovers_without_removing_them(
    fresh: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lease = leases.write_lease(leases.RUNTIME, "runtime-gone", "0000000000zzz")
    conversation = leases.write_lease(leases.CONVERSATION, "conv-1", "0000000000yyy")
    # A submit's staging directory, named after a process that is gone.
    gone = subprocess.Popen(["true"])
    gone.wait()
    leftover = jobs_dir() / STAGING_DIR / f"{gone.pid}-1000-0123abcd"
    leftover.mkdir(parents=True)
    # A killed job's runtime profile (untouched for an hour) and its worker's space reserve.
    profile = Config().browser.runtime_profiles_dir / "0123456789abcdef0123456789abcdef"
    profile.mkdir(parents=True)
    os.utime(profile, (time.time() - 3600, time.time() - 3600))
    reserve = JobStore().paths("0000000000xxx").space_reserve
    reserve.parent.mkdir(parents=True)
    reserve.write_bytes(b"\0" * 16)

    _, report = doctor_json(capsys)

    checks = by_name(report)
    stale = checks["stale leases"]
    assert stale["status"] == "warn"
    assert "runtime lease of job 0000000000zzz" in stale["detail"]
    assert "conversation lease of job 0000000000yyy" in stale["detail"]
    staging = checks["staging leftovers"]
    assert staging["status"] == "warn" and str(leftover) in staging["detail"]
    assert "oraculum clean --expired" in staging["nextStep"]
    assert lease.path.exists() and conversation.path.exists() and leftover.is_dir()
    left = checks["job leftovers"]
    assert left["status"] == "warn"
    assert str(profile) in left["detail"] and str(reserve) in left["detail"]
    assert profile.is_dir() and reserve.exists()


def test_doctor_warns_about_modes_and_fails_a_bad_seed(
    fresh: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_global_config({})
    jobs_dir().mkdir(mode=0o755, parents=True)
    os.chmod(jobs_dir(), 0o755)
    seed = seed_profile_dir(config, "chatgpt")
    seed.mkdir(parents=True)
    os.chmod(seed, 0o755)

    code, report = doctor_json(capsys)

    checks = by_name(report)
    assert checks["jobs dir"]["status"] == "warn"
    assert checks["jobs dir"]["nextStep"] == f"chmod 700 {jobs_dir()}"
    assert "0755" in checks["jobs dir"]["detail"]
    assert checks["seed profile mode"]["status"] == "warn"
    cookie = checks["seed session cookie"]
    assert (cookie["status"], cookie["code"]) == ("fail", "auth_seed_profile_unauthenticated")
    assert code == 4
    assert os.stat(jobs_dir()).st_mode & 0o777 == 0o755  # reported, not changed


def test_doctor_names_an_invalid_config(fresh: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = global_config_path()
    path.parent.mkdir(parents=True)
    path.write_text('{"browser": {"maxConcurrentJobs": "many"}}')

    code, report = doctor_json(capsys)

    assert code == 4
    config = by_name(report)["config"]
    assert (config["status"], config["code"]) == ("fail", "oracle_config_invalid")
    assert "maxConcurrentJobs" in config["detail"]
    # What needs no config still runs; what does is left out rather than guessed.
    assert {"jobs dir", "chromium launch"} <= set(by_name(report))
    assert "seed profile" not in by_name(report)


@pytest.fixture
def read_only_runtime(fresh: Path, tmp_path: Path) -> Iterator[Path]:
    """The runtime profiles dir on a read-only tmpfs (root only: it mounts one)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mount = tmp_path / "ro"
    mount.mkdir(mode=0o700)
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", str(mount)], check=True
    )
    try:
        subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
        write_global_config({"browser": {"runtimeProfilesDir": str(mount)}})
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_doctor_fails_an_unwritable_runtime_profiles_dir(
    read_only_runtime: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = doctor_json(capsys)
    runtime = by_name(report)["runtime profiles dir"]
    assert (runtime["status"], runtime["code"]) == ("fail", "runtime_profiles_dir_unwritable")
    assert str(read_only_runtime) in runtime["detail"]
    assert code == 4


def test_doctor_grok_runs_the_offline_checks_and_says_live_is_not_there_yet(
    fresh: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = doctor_json(capsys, "--provider", "grok", "--live")
    assert report["provider"] == "grok" and "live" not in report
    checks = by_name(report)
    assert checks["seed profile"]["code"] == "auth_seed_profile_missing"
    assert "oraculum auth grok" in checks["seed profile"]["nextStep"]
    live = checks["live page"]
    assert (live["status"], live["code"]) == ("warn", "provider_unsupported")
    assert code == 4  # the missing seed, not the live probe


def test_doctor_refuses_a_provider_it_cannot_check(
    fresh: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = doctor_json(capsys, "--provider", "test")
    assert code == 2
    assert report["error"]["code"] == "invalid_provider"
    assert report["error"]["allowedValues"] == ["chatgpt", "grok", "gemini"]


def test_doctor_checks_the_configured_default_provider(
    fresh: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_global_config({"defaults": {"provider": "grok"}})
    _, report = doctor_json(capsys)
    assert report["provider"] == "grok"
    assert by_name(report)["seed profile"]["detail"].endswith("chatgpt-grok")
