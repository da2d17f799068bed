"""Issue 37 §2-3 through real workers: uploads on pages without a standing file input, a
composer found by structure whatever its name, models chosen by label when names drift — and
the precise code, with wanted/observed, when the page offers no way through."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from homes import bare_project, finished, log_of  # noqa: F401 (bare_project: the fixture)
from oraculum.jobs.model import Job, Status

from .conftest import assert_failed_before_send, error_details, submit_chatgpt, write_config

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SHELLS = pytest.mark.parametrize("shell", ["classic", "redesign"])


def completed(done: Job, sim) -> Job:
    assert done.status == Status.COMPLETE, f"{done.error_code}: {done.error}\n{log_of(done)}"
    assert f"context-{done.id}.tar.zst" in Path(done.response_path).read_text()
    assert len(sim.state.user_messages(done.conversation_id)) == 1  # sent once
    return done


def timed(project: Path, config, **submit) -> tuple[Job, float]:
    started = time.monotonic()
    done = finished(submit_chatgpt(project, config, **submit).id)
    return done, time.monotonic() - started


@SHELLS
def test_lazy_file_input_upload_through_file_chooser(seeded, sim, project, shell) -> None:
    config = write_config(sim, shell=shell, scenario="lazy_file_input")
    done = completed(finished(submit_chatgpt(project, config).id), sim)
    (message,) = sim.state.user_messages(done.conversation_id)
    assert [sim.state.uploads[a].name for a in message.attachments] == [
        f"context-{done.id}.tar.zst"
    ]
    assert "archive set through the file chooser" in log_of(done)


@SHELLS
def test_no_upload_path_fails_upload_control_not_found(seeded, sim, project, shell) -> None:
    config = write_config(sim, shell=shell, scenario="no_upload_path")
    done, took = timed(project, config)
    assert_failed_before_send(done, "upload_control_not_found", "failure")
    details = error_details(done)
    assert "Add files and more" in details["wanted"]
    assert details["observed"] == ["Web search", "Deep research", "Sketch"]
    assert "Deep research" in (done.error or "")  # the message names what the menu showed
    assert took < 60
