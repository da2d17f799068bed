"""Issue 37 §1 on Grok, through real workers and real Chromium: a consent banner over the
query bar and a modal that appears mid-answer are cleared by the same safe policy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from homes import bare_project, finished, log_of  # noqa: F401 (bare_project: the fixture)
from oraculum.jobs.model import EventKind, Status

from .test_grok_driver import grok_seeded, grok_sim, submit_grok, write_config  # noqa: F401 (the Grok fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_obstacle_consent_banner_on_grok_rejects_non_essential_never_accepts_all(
    seeded, sim, project
) -> None:
    sim.state.events.clear()
    done = finished(submit_grok(project, write_config(sim, scenario="obstacle_consent")).id)
    assert done.status == Status.COMPLETE, f"{done.error}\n{log_of(done)}"
    pressed = [e["button"] for e in sim.state.events_of("page:obstacle_button")]
    assert pressed == ["Reject non-essential"]
    assert any(e.kind == EventKind.OBSTACLE for e in done.lifecycle_events)
    record = json.loads(Path(done.response_path).with_name("response.capture.json").read_text())
    assert [o["control"] for o in record["obstacles"] if o["cleared"]] == ["Reject non-essential"]


def test_obstacle_modal_on_grok_mid_answer_does_not_break_the_wait(seeded, sim, project) -> None:
    sim.state.events.clear()
    config = write_config(sim, scenario="obstacle_modal", obstacle_at="answer", token_ms=30)
    done = finished(submit_grok(project, config).id)
    assert done.status == Status.COMPLETE, f"{done.error}\n{log_of(done)}"
    assert sim.state.events_of("page:obstacle_shown")
    assert "Try it" not in [e["button"] for e in sim.state.events_of("page:obstacle_button")]
    answer = Path(done.response_path).read_text()
    assert "Summarise the project." in answer and "Try the new canvas" not in answer


def test_obstacle_unclearable_on_grok_fails_page_obstructed(seeded, sim, project) -> None:
    sim.state.events.clear()
    done = finished(submit_grok(project, write_config(sim, scenario="obstacle_unclearable")).id)
    assert done.status == Status.FAILED and done.error_code == "page_obstructed", log_of(done)
    assert 'dialog "Your plan needs an upgrade"' in (done.error or "")
    assert done.prompt_send_state.value == "not_sent"
    assert sim.state.events_of("page:obstacle_button") == []
