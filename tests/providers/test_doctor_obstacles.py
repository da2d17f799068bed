"""Issue 37 §7: `oraculum doctor --live` sees what a job would trip on — obstacles over the
controls it probes (by role and name), a Send that shows only once text is typed (no false
failure; never sent), and a failed seed check that does not stop the live probe."""

from __future__ import annotations

from pathlib import Path

import pytest

from homes import write_global_config
from oraculum.core.config import seed_profile_dir
from oraculum.simulator import SimulatorThread

from .conftest import FAST_SIM, write_config
from .test_doctor import doctor_json, entries_of, in_project  # noqa: F401 (the fixture)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
IN_PROJECT = pytest.mark.usefixtures("in_project")  # the module's signed-in home


def obstacle_entries(report: dict) -> list[dict]:
    return [e for e in report["live"]["entries"] if e["entry"].startswith("obstacle over ")]


@IN_PROJECT
@pytest.mark.parametrize(
    ("flag", "shown", "cleared_by"),
    [
        ("obstacle_modal", 'dialog "Try the new canvas"', "Not now"),
        ("obstacle_consent", 'region "Cookie consent"', "Reject non-essential"),
    ],
)
def test_live_doctor_reports_obstacles_over_the_controls_by_role_and_name(
    sim: SimulatorThread, capsys, flag: str, shown: str, cleared_by: str
) -> None:
    write_config(sim, scenario=flag)
    sim.state.events.clear()

    code, report = doctor_json(capsys, "--live")

    found = obstacle_entries(report)
    assert found and found[0]["ok"] is True, report["live"]
    assert shown in found[0]["found"] and f"cleared by {cleared_by}" in found[0]["found"]
    pressed = [e["button"] for e in sim.state.events_of("page:obstacle_button")]
    assert pressed == [cleared_by]  # never "Try it", never "Accept all"
    assert all(e["ok"] for e in report["live"]["entries"]), report["live"]
    assert code == 0, report


@IN_PROJECT
def test_live_doctor_names_an_obstacle_nothing_safe_clears(sim: SimulatorThread, capsys) -> None:
    write_config(sim, scenario="obstacle_unclearable")
    sim.state.events.clear()

    code, report = doctor_json(capsys, "--live")

    assert code == 4 and report["error"]["code"] == "doctor_failed"
    blocked = [e for e in obstacle_entries(report) if not e["ok"]]
    assert blocked, report["live"]
    assert 'dialog "Your plan needs an upgrade"' in blocked[0]["found"]
    vocabulary = next(c for c in report["checks"] if c["check"] == "live vocabulary")
    assert "obstacle over composer" in vocabulary["detail"]
    assert sim.state.events_of("page:obstacle_button") == []  # neither Upgrade nor Accept all


@IN_PROJECT
def test_live_doctor_send_shown_only_after_text_is_no_false_failure(
    sim: SimulatorThread, capsys
) -> None:
    write_config(sim, scenario="send_after_text")
    sent = len(sim.state.user_messages())

    code, report = doctor_json(capsys, "--live")

    send = entries_of(report)["send"]
    assert send["ok"] is True and "once text is typed" in send["found"], send
    assert code == 0, report
    assert len(sim.state.user_messages()) == sent  # typed, looked at, cleared: never sent


def test_doctor_live_runs_even_when_a_seed_check_fails(project: Path, capsys) -> None:
    # A seed profile with no session cookie, against a page that needs no sign-in.
    with SimulatorThread(require_login=False, **FAST_SIM) as open_sim:
        config = write_global_config(
            {"browser": {"chatUrl": open_sim.url + "/", "authUrl": open_sim.sign_in_url}}
        )
        seed_profile_dir(config, "chatgpt").mkdir(parents=True, mode=0o700)

        code, report = doctor_json(capsys, "--live")

    checks = {c["check"]: c for c in report["checks"]}
    assert checks["seed session cookie"]["status"] == "fail"  # reported ...
    assert code == 4
    assert report["live"]["entries"], report  # ... and the live probe ran all the same
    assert entries_of(report)["composer"]["ok"] is True
