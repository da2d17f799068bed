"""Issue 14 through real workers: uploads and sends that confirm their effect on pages whose
mechanics drifted (Send that needs text, a chip that lingers processing), and errors that say
what happened when the effect never comes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from homes import SIMULATOR_WORKER, bare_project, finished, log_of, write_global_config  # noqa: F401 (bare_project: the fixture)
from oraculum.jobs.model import Job, Status

from .conftest import submit_chatgpt, write_config

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def sends_while_processing(sim, job: Job) -> list:
    return [
        e for e in sim.state.events_of("send_while_processing")
        if e.get("conversation_id") == job.conversation_id
    ]  # fmt: skip


@pytest.mark.parametrize("shell", ["classic", "redesign"])
def test_send_that_needs_text_still_sends_once(seeded, sim, project, shell) -> None:
    config = write_config(sim, shell=shell, scenario="drift_send_needs_text")
    done = finished(submit_chatgpt(project, config).id)
    assert done.status == Status.COMPLETE, f"{done.error}\n{log_of(done)}"
    assert f"context-{done.id}.tar.zst" in Path(done.response_path).read_text()
    assert len(sim.state.user_messages(done.conversation_id)) == 1  # sent once


@pytest.mark.parametrize("shell", ["classic", "redesign"])
def test_upload_that_lingers_processing_is_waited_for(seeded, sim, project, shell) -> None:
    config = write_config(
        sim, shell=shell, scenario="drift_upload_lingers,drift_send_needs_text",
        upload_linger_ms=2500,
    )  # fmt: skip
    done = finished(submit_chatgpt(project, config).id)
    assert done.status == Status.COMPLETE, f"{done.error}\n{log_of(done)}"
    assert sends_while_processing(sim, done) == []  # never sent before the chip was done


def test_upload_never_confirmed_names_the_chip_state(seeded, sim, project) -> None:
    config = write_global_config(
        {
            "browser": {
                "chatUrl": sim.chat_url(scenario="drift_upload_lingers", upload_linger_ms=600000),
                "authUrl": sim.sign_in_url,
            },
            "worker": {**SIMULATOR_WORKER, "uploadTimeoutMs": 3000},
        }
    )
    done = finished(submit_chatgpt(project, config).id)
    assert done.status == Status.FAILED
    assert done.error_code == "upload_not_confirmed", f"{done.error}\n{log_of(done)}"
    assert "busy" in done.error and "Processing" in done.error
    assert done.prompt_send_state.value == "not_sent"  # nothing was sent
    logs = Path(done.logs_dir)
    assert (logs / "failure.url.txt").exists() and (logs / "failure.aria.txt").exists()
    events = json.dumps(sim.state.events_of("send_while_processing"))
    assert done.id not in events
