"""The typed results of `doctor`, `selfcheck` and `demo`: their documented JSON shapes, the
failure each carries, and their words per surface."""

from __future__ import annotations

from pathlib import Path

import pytest

from oraculum.core.paths import jobs_dir
from oraculum.jobs.model import Job
from oraculum.service.demo import DemoResult
from oraculum.service.doctor import FAIL, OK, WARN, Check, DoctorReport
from oraculum.service.selfcheck import SelfCheck, SelfcheckReport, selfcheck

SEED_STEP = "Run `oraculum auth chatgpt` (oracle_auth) once, then retry."
LIVE = {
    "url": "https://chatgpt.com/",
    "entries": [
        {"entry": "send", "expected": 'button "Send"', "found": 'button "Send"', "ok": True},
        {"entry": "stop", "expected": 'button "Stop"', "found": "nothing", "ok": False},
    ],
}


def failing_doctor() -> DoctorReport:
    return DoctorReport(
        "chatgpt",
        (
            Check("config", OK, "valid (built-in defaults only)"),
            Check("jobs dir", WARN, "/j has mode 0755, not 0700.", "chmod 700 /j"),
            Check("seed profile", FAIL, "Seed not found.", SEED_STEP, "auth_seed_profile_missing"),
            Check("live vocabulary", FAIL, "No longer matches the page: stop.", None, "drift"),
        ),
        LIVE,
    )


def test_a_failing_doctor_report_keeps_the_documented_json_and_carries_doctor_failed() -> None:
    report = failing_doctor()
    shown = report.to_json()
    assert list(shown) == ["ok", "provider", "checks", "live", "error"]
    assert shown["ok"] is False and shown["provider"] == "chatgpt" and shown["live"] == LIVE
    assert shown["checks"][0] == {
        "check": "config",
        "status": "ok",
        "detail": "valid (built-in defaults only)",
    }
    assert shown["checks"][2] == {
        "check": "seed profile",
        "status": "fail",
        "detail": "Seed not found.",
        "nextStep": SEED_STEP,
        "code": "auth_seed_profile_missing",
    }
    error = shown["error"]
    assert error["code"] == "doctor_failed"
    assert error["message"] == "oraculum doctor found 2 problem(s): seed profile, live vocabulary."
    assert error["suggestedNextStep"] == SEED_STEP
    assert error["details"] == {"failed": ["seed profile", "live vocabulary"]}
    assert report.error is not None and int(report.error.exit_code) == 4


def test_a_green_doctor_report_has_no_error_and_no_live_part() -> None:
    report = DoctorReport("grok", (Check("config", OK, "valid"), Check("capacity", WARN, "full")))
    assert report.ok and report.error is None
    assert report.to_json() == {
        "ok": True,
        "provider": "grok",
        "checks": [
            {"check": "config", "status": "ok", "detail": "valid"},
            {"check": "capacity", "status": "warn", "detail": "full"},
        ],
    }
    assert report.text("cli").splitlines()[-1] == "doctor (grok): no problems found"


def test_doctor_words_name_each_surfaces_commands() -> None:
    report = failing_doctor()
    cli, mcp = report.text("cli"), report.text("mcp")
    assert "FAIL  seed profile: Seed not found." in cli
    assert f"        next step: {SEED_STEP}" in cli
    assert "warn  jobs dir: /j has mode 0755, not 0700." in cli
    assert '  NO  stop: expected button "Stop"; found nothing' in cli
    assert cli.splitlines()[-1] == "doctor (chatgpt): problems found"
    assert 'Call `oracle_auth {"provider": "chatgpt"}` once' in mcp
    assert "`oraculum auth chatgpt`" not in mcp
    assert cli.replace(SEED_STEP, "") == mcp.replace(
        'Call `oracle_auth {"provider": "chatgpt"}` once, then retry.', ""
    )


def test_selfcheck_report_shape_failure_and_words() -> None:
    report = SelfcheckReport(
        "1.2.3",
        (SelfCheck("python", True, "3.11.9"), SelfCheck("chromium", False, "not found")),
    )
    assert report.to_json() == {
        "version": "1.2.3",
        "ok": False,
        "checks": [
            {"check": "python", "ok": True, "detail": "3.11.9"},
            {"check": "chromium", "ok": False, "detail": "not found"},
        ],
    }
    error = report.error
    assert error is not None and error.code == "selfcheck_failed"
    assert error.message == "Self-check failed: chromium."
    assert error.details == report.to_json()
    assert (
        report.text("cli")
        == report.text("mcp")
        == "ok    python: 3.11.9\nFAIL  chromium: not found"
    )


def test_selfcheck_without_a_launch_checks_this_machine(oraculum_home: Path) -> None:
    report = selfcheck(launch_browser=False)
    names = [c.check for c in report.checks]
    assert names[:4] == ["python", "jobs dir", "state dir", "data dir"]
    assert "chromium launch" not in names
    by_name = {c.check: c for c in report.checks}
    assert by_name["jobs dir"].ok and by_name["jobs dir"].detail == str(jobs_dir())
    assert jobs_dir().stat().st_mode & 0o777 == 0o700  # made private on the way
    assert report.ok is (report.error is None)


def finished_job(status: str, phase: str, **extra: object) -> Job:
    base = "/tmp/jobs/oracle-0000000000abc"
    return Job.model_validate(
        {
            "id": "0000000000abc",
            "status": status,
            "phase": phase,
            "phaseAt": "2026-12-01T10:00:00.000Z",
            "createdAt": "2026-12-01T09:59:00.000Z",
            "submittedAt": "2026-12-01T09:59:00.000Z",
            "completedAt": "2026-12-01T10:00:00.000Z",
            "projectRoot": "/tmp/project",
            "projectId": "0123456789abcdef",
            "provider": "chatgpt",
            "selection": {"provider": "chatgpt", "preset": "thinking_standard"},
            "promptPath": f"{base}/prompt.md",
            "archivePath": f"{base}/context-0000000000abc.tar.zst",
            "responsePath": f"{base}/response.md",
            "artifactsManifestPath": f"{base}/artifacts.json",
            "logsDir": f"{base}/logs",
            "runtimeId": "rt-1",
            "runtimeProfileDir": "/tmp/runtime/rt-1",
            **extra,
        }
    )


def test_demo_result_json_and_words() -> None:
    job = finished_job("complete", "complete")
    result = DemoResult(job, Path("/tmp/sample"), True, "# Answer\n")
    assert result.to_json() == {
        "job": job.to_json_dict(),
        "project": "/tmp/sample",
        "sampleProject": True,
        "response": "# Answer\n",
    }
    assert result.error is None
    headline = (
        "job 0000000000abc complete — answer saved to /tmp/jobs/oracle-0000000000abc/response.md"
    )
    assert result.text("cli") == result.text("mcp") == f"{headline}\n\n# Answer\n"


@pytest.mark.parametrize(("status", "phase"), [("failed", "failed"), ("cancelled", "cancelled")])
def test_a_demo_job_that_did_not_complete_is_demo_failed(status: str, phase: str) -> None:
    job = finished_job(status, phase, error="the page never loaded")
    error = DemoResult(job, Path("/tmp/p"), False, None).error
    assert error is not None and error.code == "demo_failed"
    assert error.message == f"The demo job 0000000000abc ended {status}: the page never loaded"
    assert "`oraculum status 0000000000abc`" in (error.suggested_next_step or "")
