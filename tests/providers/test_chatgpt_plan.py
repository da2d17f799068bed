"""Issue 38 §7: an account whose plan lacks the preset's model. The simulator's `plan` knob
locks the Power slider's stops the plan lacks (an "Upgrade" button beside each, as inferred in
docs/simulator.md); a job of such a preset fails `model_not_in_plan` naming the preset and the
plan it needs, and never sends; `doctor --live` warns about the configured preset."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from homes import (  # noqa: F401 (bare_project: the fixture)
    bare_project,
    finished,
    log_of,
    write_global_config,
)
from oraculum.cli import main
from oraculum.jobs.model import Status

from .conftest import (
    assert_failed_before_send,
    error_details,
    simulator_config,
    submit_chatgpt,
    write_config,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.parametrize(
    ("plan", "preset", "stop", "needs"),
    [
        ("plus", "pro_extended", "Pro", "ChatGPT Pro"),
        ("free", "thinking_heavy", "Extra High", "ChatGPT Plus"),
    ],
)
def test_a_preset_the_plan_lacks_fails_before_send(
    seeded, sim, project: Path, plan: str, preset: str, stop: str, needs: str
) -> None:
    config = write_config(sim, plan=plan, model="thinking")  # the account on Medium
    sent = len(sim.state.user_messages())
    done = finished(submit_chatgpt(project, config, preset=preset).id)
    assert_failed_before_send(done, "model_not_in_plan", "failure")
    assert len(sim.state.user_messages()) == sent  # nothing sent
    details = error_details(done)
    assert details["wanted"] == stop and details["preset"] == preset
    assert details["plan"] == needs and stop in details["locked"]
    assert preset in (done.error or "") and needs in (done.error or "")
    assert "Upgrade" in (done.error or "")


def test_a_preset_the_plan_has_still_runs(seeded, sim, project: Path) -> None:
    config = write_config(sim, plan="plus")
    done = finished(submit_chatgpt(project, config, preset="thinking_heavy").id)
    assert done.status == Status.COMPLETE, f"{done.error_code}: {done.error}\n{log_of(done)}"
    (message,) = sim.state.user_messages(done.conversation_id)
    assert (message.model.family, message.model.effort) == ("thinking", "heavy")


def _doctor_live(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["--json", "doctor", "--live"])
    report = json.loads(capsys.readouterr().out)
    return code, {c["check"]: c for c in report["checks"]}


@pytest.mark.parametrize(
    ("preset", "warned"), [("pro_extended", True), ("thinking_extended", False)]
)
def test_doctor_live_warns_when_the_plan_lacks_the_configured_preset(
    seeded,
    sim,
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    preset: str,
    warned: bool,
) -> None:
    (project / "pyproject.toml").write_text("")
    monkeypatch.chdir(project)
    write_global_config({**simulator_config(sim, plan="plus"), "defaults": {"preset": preset}})
    code, checks = _doctor_live(capsys)
    assert code == 0, checks  # a warning, not a failure
    plan = checks["preset plan"]
    if warned:
        assert plan["status"] == "warn" and plan["code"] == "model_not_in_plan", plan
        assert "pro_extended" in plan["detail"] and "ChatGPT Pro" in plan["detail"]
    else:
        assert plan["status"] == "ok", plan


def test_preflight_live_warns_naming_the_preset_and_the_plan(
    seeded, sim, project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text("")
    monkeypatch.chdir(project)
    write_global_config(simulator_config(sim, plan="plus"))  # the default preset: pro_extended
    sent = len(sim.state.user_messages())
    code = main(["--json", "preflight", "--live", "--session", "s1"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["ready"] is True, report  # a warning, not a blocker
    (warning,) = report["warnings"]
    assert warning["check"] == "preset plan" and warning["code"] == "model_not_in_plan"
    assert "pro_extended" in warning["detail"] and "ChatGPT Pro" in warning["detail"]
    assert len(sim.state.user_messages()) == sent
    # Without --live, preflight never opens the page: no warning.
    assert main(["--json", "preflight", "--session", "s1"]) == 0
    assert "warnings" not in json.loads(capsys.readouterr().out)
