"""Issue 37 §1 through real workers and real Chromium: dialogs, backdrops and consent banners
over the ChatGPT page are cleared by the safe policy (Escape, then a dismiss button, never an
upgrade or an accept-all), recorded, and what nothing safe clears fails `page_obstructed`."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from homes import bare_project, finished, log_of  # noqa: F401 (bare_project: the fixture)
from oraculum.jobs.model import EventKind, Job, Status
from oraculum.providers.chatgpt.page import ChatGPTPage
from oraculum.simulator import SimulatorThread

from .conftest import assert_failed_before_send, simulator_page, submit_chatgpt, write_config

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SHELLS = pytest.mark.parametrize("shell", ["classic", "redesign"])


def pressed(sim: SimulatorThread) -> list[str]:
    """Every obstacle button the page saw pressed, in order."""
    return [e["button"] for e in sim.state.events_of("page:obstacle_button")]


def run_job(sim: SimulatorThread, project: Path, **knobs: Any) -> Job:
    sim.state.events.clear()
    job = submit_chatgpt(project, write_config(sim, answer="echo", **knobs))
    return finished(job.id)


def assert_complete_with_dismissal(done: Job, control: str) -> None:
    """The job completed, and its log, events and capture record name the dismissal."""
    assert done.status == Status.COMPLETE, f"{done.error}\n{log_of(done)}"
    assert "Summarise the project." in Path(done.response_path).read_text()
    events = [e.message for e in done.lifecycle_events if e.kind == EventKind.OBSTACLE]
    assert events and any(control in m for m in events), done.lifecycle_events
    assert control in log_of(done)
    record = json.loads(Path(done.response_path).with_name("response.capture.json").read_text())
    assert any(o["control"] == control and o["cleared"] for o in record["obstacles"]), record


@SHELLS
def test_obstacle_modal_dialog_is_dismissed_not_now_never_try_it(
    seeded, sim, project, shell
) -> None:
    done = run_job(sim, project, shell=shell, scenario="obstacle_modal")
    assert_complete_with_dismissal(done, "Not now")
    assert pressed(sim) == ["Not now"]  # Escape first (ignored), then "Not now"; never "Try it"
    assert sim.state.events_of("page:obstacle_escape")


@SHELLS
def test_obstacle_backdrop_without_buttons_is_cleared_by_escape(
    seeded, sim, project, shell
) -> None:
    done = run_job(sim, project, shell=shell, scenario="obstacle_backdrop")
    assert_complete_with_dismissal(done, "Escape")
    assert [e["closed"] for e in sim.state.events_of("page:obstacle_escape")] == [True]
    assert pressed(sim) == []


@SHELLS
def test_obstacle_consent_banner_rejects_non_essential_never_accepts_all(
    seeded, sim, project, shell
) -> None:
    done = run_job(sim, project, shell=shell, scenario="obstacle_consent")
    assert_complete_with_dismissal(done, "Reject non-essential")
    assert pressed(sim) == ["Reject non-essential"]


@SHELLS
def test_obstacle_unclearable_fails_page_obstructed_naming_it(seeded, sim, project, shell) -> None:
    started = time.monotonic()
    done = run_job(sim, project, shell=shell, scenario="obstacle_unclearable")
    assert time.monotonic() - started < 60
    assert_failed_before_send(done, "page_obstructed", "failure")
    # Named by role and accessible name, with the control the driver was going for.
    assert 'dialog "Your plan needs an upgrade" covers the composer' in (done.error or "")
    assert '"wanted": "the composer"' in log_of(done)  # the error's details, in the log
    assert pressed(sim) == []  # neither "Upgrade" nor "Accept all", ever


@pytest.mark.parametrize("moment", ["ready", "picker", "upload", "answer"])
def test_obstacle_appearing_mid_job_is_cleared(seeded, sim, project, moment) -> None:
    knobs: dict[str, Any] = {"obstacle_at": moment, "obstacle_delay_ms": 700}
    if moment == "answer":  # a slow answer, so the dialog shows while it streams
        knobs.update(token_ms=40)
    done = run_job(sim, project, scenario="obstacle_modal", **knobs)
    assert done.status == Status.COMPLETE, f"{done.error}\n{log_of(done)}"
    assert sim.state.events_of("page:obstacle_shown")
    assert "Try it" not in pressed(sim)
    answer = Path(done.response_path).read_text()
    assert "Summarise the project." in answer and "Try the new canvas" not in answer
    if moment != "answer":  # before the send it stands in the way: cleared by the policy
        assert "Not now" in pressed(sim)


# A backdrop that shows only after the layer looked (as real ones do, mid-animation): only the
# click's own interception can tell. Escape removes it.
LATE_BACKDROP = """() => {
  const d = document.createElement("div");
  d.style.cssText = "position:fixed;inset:0;z-index:999;background:rgba(0,0,0,.3)";
  document.body.append(d);
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") d.remove(); });
}"""


async def test_obstacle_intercepting_a_click_is_cleared_and_the_click_retried_once(sim) -> None:
    async with simulator_page(sim) as page:
        await page.goto(sim.chat_url())
        await page.locator("#prompt-textarea[contenteditable=true]").wait_for()
        chat = ChatGPTPage(page)
        add = chat.add_files().first
        attempts = 0

        async def click() -> None:
            nonlocal attempts
            attempts += 1
            if attempts == 1:
                await page.evaluate(LATE_BACKDROP)
            await add.click(timeout=2_000)

        await chat.obstacles.act(add, "Add files and more", click)
        assert attempts == 2  # intercepted once, cleared, clicked again
        assert [(d.control, d.cleared) for d in chat.obstacles.dismissals] == [("Escape", True)]
        assert await add.get_attribute("aria-expanded") == "true"  # the click took effect
