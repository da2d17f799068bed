"""Issue 37 §2-3 through real workers: uploads on pages without a standing file input, a
composer found by structure whatever its name, models chosen by label when names drift — and
the precise code, with wanted/observed, when the page offers no way through."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from homes import bare_project, finished, log_of  # noqa: F401 (bare_project: the fixture)
from oraculum.jobs.model import Job, Status
from oraculum.providers.chatgpt.page import ChatGPTPage

from .conftest import (
    assert_failed_before_send,
    error_details,
    simulator_page,
    submit_chatgpt,
    write_config,
)

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


# §3: the composer is the editable textbox of the composer form, whatever its name.
@SHELLS
@pytest.mark.parametrize("label", ["Message ChatGPT", "none"])
def test_renamed_composer_is_found_by_structure(seeded, sim, project, shell, label) -> None:
    config = write_config(sim, shell=shell, composer_label=label)
    done = completed(finished(submit_chatgpt(project, config).id), sim)
    (message,) = sim.state.user_messages(done.conversation_id)
    assert message.text == "Summarise the project."


def test_composer_never_ready_names_what_it_found(seeded, sim, project) -> None:
    config = write_config(sim, composer_label="Message ChatGPT", hydrate_ms=600000)
    done, took = timed(project, config)
    assert_failed_before_send(done, "provider_not_ready", "preflight")
    details = error_details(done)
    assert "editable textbox in the composer form" in details["wanted"]
    assert details["observed"] == 'textbox "Message ChatGPT" in the composer form (not editable)'
    assert details["observed"] in (done.error or "")
    assert took < 60


WORK_AND_SEARCH = """
<input type="search" aria-label="Search chats">
<form><div role="textbox" contenteditable="true" aria-label="Work with ChatGPT"></div>
<button aria-label="Add files and more">+</button></form>
"""


def test_the_work_composer_and_a_search_box_are_never_the_composer(sim) -> None:
    async def run() -> tuple[int, str]:
        async with simulator_page(sim) as page:
            await page.set_content(WORK_AND_SEARCH)
            chat = ChatGPTPage(page)
            return await chat.composer().count(), await chat.composer_seen()

    count, seen = asyncio.run(run())
    assert count == 0
    assert seen == (
        'textbox "Search chats" outside the composer form; '
        'textbox "Work with ChatGPT" in the composer form'
    )
