"""Issue 37 §4 through real workers and real Chromium: a job ends on positive terminal evidence
for its own reply, never at a silent pause, and is `complete` only when its answer is saved."""

from __future__ import annotations

import copy
import time
from pathlib import Path
from typing import Any

import pytest

from homes import (  # noqa: F401 (bare_project: the fixture)
    SIMULATOR_WORKER,
    bare_project,
    complete,
    finished,
    log_of,
    write_global_config,
)
from oraculum.core.config import Config
from oraculum.jobs.model import Job, Status
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.simulator import SimulatorThread
from oraculum.simulator.answers import END_MARKER

from .conftest import simulator_config, submit_chatgpt

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Short enough for a test, longer than two polls: the window a quiet turn must hold still.
TEST_QUIET_MS = 1500
LABEL = "Thought for 25s"
# Where the mid-answer pause comes: the receipt's heading is out, its end marker is not.
PAUSE_AT_CHARS = 200


def quiet_config(
    sim: SimulatorThread,
    quiet_ms: int | None = TEST_QUIET_MS,
    worker: dict[str, Any] | None = None,
    **knobs: Any,
) -> Config:
    """The simulator config with the completion quiet window shrunk (None: the default)."""
    data = simulator_config(sim, **knobs)
    data["worker"] = {**SIMULATOR_WORKER, **(worker or {})}
    if quiet_ms is not None:
        data["worker"]["completionQuietMs"] = quiet_ms
    return write_global_config(data)


def assert_whole_answer(done: Job) -> None:
    answer = Path(done.response_path).read_text()
    assert done.archive_sha256 in answer and "src/app.py" in answer, answer
    assert "Thought for" not in answer


@pytest.mark.parametrize(
    ("shell", "flags"),
    [("classic", "normal"), ("redesign", "label_only_turn")],
)
def test_silent_reasoning_gap_does_not_end_the_job_early(
    seeded, sim, project: Path, shell: str, flags: str
) -> None:
    """Between reasoning and answer the stop control goes away and the turn shows only its
    reasoning label for a while: that is not the end of the answer."""
    config = quiet_config(
        sim, shell=shell, scenario=flags, silent_gap_ms=4000, reasoning_label=LABEL
    )
    gaps = len(sim.state.events_of("page:silent_gap"))
    done = complete(submit_chatgpt(project, config))
    assert_whole_answer(done)
    assert done.collection_status in ("complete", "partial")
    assert len(sim.state.events_of("page:silent_gap")) > gaps


def test_late_action_bar_and_rerendered_turn_end_with_the_whole_answer(
    seeded, sim, project: Path
) -> None:
    """The turn's action bar arrives late and the finished turn's DOM is then replaced: the job
    still ends once, with the whole answer."""
    config = quiet_config(
        sim, quiet_ms=30_000, scenario="rerender_at_end", action_bar_delay_ms=2500
    )
    rerenders = len(sim.state.events_of("page:rerendered"))
    done = complete(submit_chatgpt(project, config))
    assert_whole_answer(done)
    assert len(sim.state.events_of("page:rerendered")) > rerenders
    assert "answer finished (" in log_of(done) and "its action bar" in log_of(done)


def _conversation_of(sim: SimulatorThread, archive: str) -> Any:
    for conv in list(sim.state.conversations.values()):
        for turn in conv.user_turns():
            names = [sim.state.uploads[i].name for i in turn.attachments if i in sim.state.uploads]
            if archive in names:
                return conv, turn
    return None, None


def _duplicate_archive_turn_once_answered(sim: SimulatorThread, archive: str) -> tuple[Any, Any]:
    """As soon as the job's answer is committed, the conversation shows the job's archive in a
    second user turn, so the reply can no longer be bound to one user turn."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        conv, user = _conversation_of(sim, archive)
        if conv is not None:
            conv.refresh()
            replies = conv.assistant_turns()
            if replies and replies[-1].status == "complete":
                twin = copy.copy(user)
                twin.message_id = user.message_id + "-twin"
                twin.seeded = True
                conv.turns.append(twin)
                return conv, twin
        time.sleep(0.02)
    raise AssertionError("the job's answer was never committed")


def _revived(job_id: str, timeout_s: float = 60.0) -> Job:
    """The job once a recollection of it turned it complete (or recorded why not)."""
    store = JobStore()
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job = store.load(job_id)
        if job.status == Status.COMPLETE or job.recollection_error:
            return job
        time.sleep(0.3)
    return store.load(job_id)


def test_collection_failure_is_not_complete_and_says_recollect(
    seeded, sim, project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Generation ended, but the turn could not be bound and saved: the job fails with
    `answer_not_saved`, says `read --recollect`, and a recollection that saves it completes it."""
    from oraculum.cli import main
    from oraculum.service.read import read
    from oraculum.service.wait import wait

    # The action bar comes late, so the job cannot finish before the twin turn is in.
    config = quiet_config(sim, action_bar_delay_ms=1500, quiet_ms=60_000)
    job = submit_chatgpt(project, config)
    conv, twin = _duplicate_archive_turn_once_answered(sim, Path(job.archive_path).name)
    shown = time.monotonic()
    done = finished(job.id)
    assert time.monotonic() - shown < 60
    assert done.status == Status.FAILED, log_of(done)
    assert done.error_code == "answer_not_saved", done.error
    assert f"oraculum read {job.id} --recollect" in (done.error or "")
    assert done.generation_status == "completed"
    assert done.prompt_send_state.value == "accepted"
    assert done.recollection_needed is True
    assert not Path(done.response_path).exists()

    waited = wait(job.id, caller=Caller(cwd=project), timeout_s=5)
    assert waited.job is not None and waited.job["errorCode"] == "answer_not_saved"
    assert waited.job["answerSaved"] is False
    assert waited.job["nextStep"] == f"oraculum read {job.id} --recollect"
    summary = read(job.id, caller=Caller(cwd=project)).to_json("cli")
    assert summary["job"]["answerSaved"] is False
    assert f"run `oraculum read {job.id} --recollect`" in read(
        job.id, caller=Caller(cwd=project)
    ).text("cli")
    assert "oracle_read" in read(job.id, caller=Caller(cwd=project)).text("mcp")
    monkeypatch.chdir(project)
    assert main(["--json", "wait", job.id]) == 6  # the CLI's exit codes
    assert main(["--json", "read", job.id]) == 6
    capsys.readouterr()

    conv.turns.remove(twin)  # the conversation is unambiguous again
    started = read(job.id, caller=Caller(cwd=project), action="recollect").recollection
    assert started is not None and started.started is True
    again = _revived(job.id)
    assert again.status == Status.COMPLETE, log_of(again)
    assert_whole_answer(again)
    assert again.error_code is None


def test_real_default_quiet_window_waits_out_a_60s_silent_gap_mid_answer(
    seeded, sim, project: Path
) -> None:
    """With the shipped defaults (no quiet-window override), part of the answer sits on the
    page for 62 seconds with no stop control, no indicator and no action bar; the job still
    saves the whole answer, not the part shown before the pause."""
    config = quiet_config(
        sim,
        quiet_ms=None,
        worker={"completionTimeoutMs": 180_000},
        pause_ms=62_000,
        pause_at_chars=PAUSE_AT_CHARS,
    )
    paused = len(sim.state.events_of("page:answer_paused"))
    job = submit_chatgpt(project, config)
    done = finished(job.id, timeout=180)
    assert done.status == Status.COMPLETE, f"{done.error}\n{log_of(done)}"
    assert len(sim.state.events_of("page:answer_paused")) > paused
    assert_whole_answer(done)
    assert END_MARKER in Path(done.response_path).read_text()


def test_short_quiet_window_ends_at_a_mid_answer_pause(seeded, sim, project: Path) -> None:
    """The control for the test above: a 5-second quiet window does end the job at the pause,
    with only the text shown before it, so the 62-second pause is one a short window would not
    survive."""
    config = quiet_config(sim, quiet_ms=5000, pause_ms=20_000, pause_at_chars=PAUSE_AT_CHARS)
    done = complete(submit_chatgpt(project, config))
    answer = Path(done.response_path).read_text()
    assert "Upload receipt" in answer and END_MARKER not in answer, answer
    assert "no change for 5s" in log_of(done)
