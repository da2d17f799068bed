"""A job's typed selection and its options: new jobs keep them apart, and a job.json written
before `options` existed (extras inside the selection) loads and behaves as it did."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from homes import write_fast_config
from oraculum.core.config import Config
from oraculum.core.fsio import atomic_write_json
from oraculum.core.presets import selection_of
from oraculum.jobs.model import Job, JobSelection
from oraculum.jobs.store import JobStore
from oraculum.providers.chatgpt.provider import _is_research
from oraculum.service.caller import Caller
from oraculum.service.cancel import cancel
from oraculum.service.common import choose_provider
from oraculum.service.status import status
from oraculum.service.submit import submit
from oraculum.service.wait import wait

from .conftest import build_job

DEEP_RESEARCH = selection_of("chatgpt", "deep_research").to_json_dict()


def write_legacy(store: JobStore, job: Job, selection: dict[str, Any]) -> Path:
    """Rewrite ``job``'s job.json as the previous version wrote it: no `options`, its extras
    inside `selection`."""
    legacy = job.to_json_dict()
    legacy.pop("options", None)
    legacy["selection"] = selection
    path = store.paths(job.id).job_file
    atomic_write_json(path, legacy)
    return path


def test_a_legacy_job_json_loads_with_its_extras_as_options(store: JobStore) -> None:
    job = build_job()
    store.create(job, "prompt")
    path = write_legacy(store, job, {**DEEP_RESEARCH, "research_answer": "Both, weigh speed."})

    loaded = store.load(job.id)
    assert loaded.selection == JobSelection.of(selection_of("chatgpt", "deep_research"))
    assert loaded.selection.tool == "deep_research" and _is_research(loaded)
    assert loaded.options == {"research_answer": "Both, weigh speed."}
    # What users see is the selection as documented, in its order, nulls included.
    assert loaded.selection.to_json_dict() == DEEP_RESEARCH
    assert list(loaded.selection.to_json_dict()) == list(DEEP_RESEARCH)

    store.save(loaded)
    on_disk = json.loads(path.read_text())
    assert on_disk["selection"] == DEEP_RESEARCH
    assert on_disk["options"] == {"research_answer": "Both, weigh speed."}
    assert store.load(job.id) == loaded


@pytest.mark.parametrize(
    "selection",
    [
        {},
        {"provider": "chatgpt", "preset": "pro_extended"},
        {"provider": "test", "label": "Test (dry run)"},
        selection_of("grok", "heavy").to_json_dict(),
    ],
)
def test_a_selection_reads_back_exactly_as_written(
    store: JobStore, selection: dict[str, Any]
) -> None:
    job = build_job()
    store.create(job, "prompt")
    write_legacy(store, job, selection)
    loaded = store.load(job.id)
    assert loaded.selection.to_json_dict() == selection
    assert loaded.to_json_dict()["selection"] == selection
    assert loaded.options == {}


def test_given_options_win_over_legacy_extras_and_unknown_selection_keys_are_options() -> None:
    fields = build_job().to_json_dict()
    fields["selection"] = {"provider": "test", "outcome": "hang", "delayMs": 5}
    fields["options"] = {"outcome": "complete"}
    job = Job.model_validate(fields)
    assert job.selection.to_json_dict() == {"provider": "test"}
    assert job.options == {"outcome": "complete", "delayMs": 5}


def test_new_choices_keep_the_selection_and_the_options_apart() -> None:
    extras = {"research_answer": "Both."}
    chatgpt = choose_provider("chatgpt", "deep research", Config(), extras)
    assert chatgpt.selection == JobSelection.of(selection_of("chatgpt", "deep_research"))
    assert chatgpt.options == extras and chatgpt.options is not extras
    dry = choose_provider("test", "pro-extended", Config(), {"outcome": "hang"})
    assert dry.selection.to_json_dict() == {
        "provider": "test",
        "preset": "pro_extended",
        "label": "Test (dry run)",
    }
    assert dry.options == {"outcome": "hang"}
    assert choose_provider("grok", None, Config()).options == {}


@pytest.mark.slow
def test_a_legacy_queued_job_runs_with_its_knobs(project: Path) -> None:
    """A job queued by the previous version (knobs inside its selection) is promoted, and the
    worker reads those knobs: the test provider answers with the legacy `response` knob."""
    write_fast_config({"browser": {"maxConcurrentJobs": 1}})
    store = JobStore()
    running = submit(
        "one",
        ["src"],
        caller=Caller(session="s"),
        provider="test",
        selection_extras={"outcome": "hang"},
    )
    queued = submit("two", ["src"], caller=Caller(session="s"), provider="test").job
    assert queued["queue"]["queued"] is True
    legacy = {"provider": "test", "label": "Test (dry run)", "response": "From a legacy knob."}
    write_legacy(store, store.load(queued["id"]), legacy)
    try:
        cancel(running.job["id"])
        done = wait(queued["id"], caller=Caller(session="s")).to_json()
        assert done["job"]["status"] == "complete", done
        response = Path(store.load(queued["id"]).response_path).read_text()
        assert response == "From a legacy knob.\n"
        shown = status(queued["id"]).to_json()["job"]["selection"]
        assert shown == {"provider": "test", "label": "Test (dry run)"}
        assert store.load(queued["id"]).options == {"response": "From a legacy knob."}
    finally:
        for job_id in (queued["id"], running.job["id"]):
            if not store.load(job_id).is_terminal:
                cancel(job_id)
