"""Issue 37 §2-3 through real workers: uploads on pages without a standing file input, a
composer found by structure whatever its name, models chosen by label when names drift — and
the precise code, with wanted/observed, when the page offers no way through."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from homes import bare_project, finished, log_of  # noqa: F401 (bare_project: the fixture)
from oraculum.core.errors import OracleError
from oraculum.jobs.model import Job, Status
from oraculum.providers import upload
from oraculum.providers.chatgpt.composer import UPLOAD_ROUTE
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


# §3: models chosen by label when their names drift.
def sent_model(sim, done: Job) -> tuple[str, str]:
    (message,) = sim.state.user_messages(done.conversation_id)
    return message.model.family, message.model.effort


@pytest.mark.parametrize("picker", ["power", "intelligence", "chips", "legacy"])
def test_prefixed_model_names_match_their_base_name_and_record_the_drift(
    seeded, sim, project, picker
) -> None:
    config = write_config(sim, picker=picker, model_prefix="GPT-5.6")
    done = completed(finished(submit_chatgpt(project, config, preset="thinking_extended").id), sim)
    assert sent_model(sim, done) == ("thinking", "extended")
    if picker != "legacy":  # the legacy dialog's opener is not named by the model
        assert "GPT-5.6" in (done.observed_selection or {}).get("drift", ""), (
            done.observed_selection
        )
        assert "model name drift: 'GPT-5.6" in log_of(done)


@pytest.mark.parametrize(
    ("preset", "model"),
    [("thinking_extended", ("thinking", "extended")), ("pro_standard", ("pro", "standard"))],
)
def test_inserted_slider_stop_lands_on_the_wanted_label(
    seeded, sim, project, preset, model
) -> None:
    config = write_config(sim, power_stops="Instant,Low,Medium,High,Extra High,Pro")
    done = completed(finished(submit_chatgpt(project, config, preset=preset).id), sim)
    assert sent_model(sim, done) == model


def test_missing_slider_stop_fails_naming_the_stops_it_showed(seeded, sim, project) -> None:
    config = write_config(sim, power_stops="Instant,Medium,High,Pro", model="thinking")
    done, took = timed(project, config, preset="thinking_heavy")
    assert_failed_before_send(done, "model_selection_unverified", "failure")
    details = error_details(done)
    assert details["wanted"] == "Extra High"
    assert details["observed"] == ["Medium", "High", "Pro"]
    assert "Medium, High, Pro" in (done.error or "")
    assert took < 60


def test_ambiguous_prefixed_model_is_refused(seeded, sim, project) -> None:
    config = write_config(
        sim, picker="chips", model_prefix="GPT-5.6", scenario="drift_ambiguous_model"
    )
    done, took = timed(project, config, preset="thinking_standard")
    assert_failed_before_send(done, "model_entry_ambiguous", "failure")
    details = error_details(done)
    assert details["wanted"] == "Thinking"
    assert {"GPT-5.6 Thinking", "GPT-5.5 Thinking"} <= set(details["observed"])
    assert "'GPT-5.6 Thinking', 'GPT-5.5 Thinking'" in (done.error or "")
    assert took < 60


def test_unknown_model_name_fails_picker_not_found_naming_the_buttons(seeded, sim, project) -> None:
    config = write_config(sim, model_prefix="Orion", model="thinking")
    done, took = timed(project, config)
    assert_failed_before_send(done, "model_picker_not_found", "failure")
    details = error_details(done)
    assert "Model selector" in details["wanted"]
    assert "Orion Medium" in details["observed"]
    assert "'Orion Medium'" in (done.error or "")
    assert took < 60


DEAD_UPLOAD_ENTRY = """
<form><div id="prompt-textarea" contenteditable="true" role="textbox"></div>
<div role="menu"><div>Upload from computer</div><div>Web search</div></div></form>
"""


def test_an_upload_entry_that_opens_no_chooser_fails_upload_control_not_found(sim) -> None:
    async def run() -> OracleError:
        async with simulator_page(sim) as page:
            await page.set_content(DEAD_UPLOAD_ENTRY)
            with pytest.raises(OracleError) as caught:
                await upload.choose_file(ChatGPTPage(page), UPLOAD_ROUTE, Path(__file__))
            return caught.value

    error = asyncio.run(run())
    assert error.code == "upload_control_not_found"
    assert error.details["observed"] == ["Upload from computer", "Web search"]
    assert "opened no file chooser" in error.message
