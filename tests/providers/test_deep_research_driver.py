"""Deep Research end to end: real worker processes, real Chromium, the simulator's widget on a
second origin. Each capture source and knob, both shells."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from homes import bare_project, complete, finished  # noqa: F401 (bare_project: the fixture)
from oraculum.core.presets import resolve_selection
from oraculum.jobs.admission import JobRequest, submit_job
from oraculum.jobs.model import Job, Status
from oraculum.service.caller import Caller
from oraculum.simulator import deep_research as fixture

from .conftest import make_archive, recollected, write_config

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SHELLS = ("classic", "redesign")
SOURCES = (
    "facebook.github.io/zstd",
    "www.gnu.org/software/gzip",
    "datatracker.ietf.org/doc/html/rfc8878",
    "www.gnu.org/software/tar/manual",
)


def capture_record(job: Job) -> dict:
    return json.loads(Path(job.response_path).with_name("response.capture.json").read_text())


def submit_research(project: Path, sim, *, research_answer: str | None = None, **knobs) -> Job:
    config = write_config(sim, research_ms=knobs.pop("research_ms", 1500), **knobs)
    return _submit(project, config, research_answer)


def _submit(project: Path, config, research_answer: str | None) -> Job:
    archive, sha = make_archive(project.parent / "staging", {"README.md": b"# demo\n"})
    selection = resolve_selection("chatgpt", "deep_research", config).to_json_dict()
    if research_answer is not None:
        selection["research_answer"] = research_answer
    return submit_job(
        JobRequest(
            project_root=project,
            prompt="Compare zstd and gzip for project snapshots.",
            provider="chatgpt",
            selection=selection,
            config=config,
            archive=archive,
            archive_sha256=sha,
            archive_bytes=archive.stat().st_size,
            session_id="s1",
        )
    )


@pytest.mark.parametrize("shell", SHELLS)
def test_the_native_export_is_the_response_on_both_shells(seeded, sim, project, shell) -> None:
    done = complete(submit_research(project, sim, shell=shell))
    assert done.observed_selection == {
        "tool": "deep_research",
        "shows": "Deep research",
        "pill": True,
    }
    assert sim.state.user_messages()[-1].tool == "deep_research"
    answer = Path(done.response_path).read_text()
    assert answer.startswith(f"# {fixture.REPORT_TITLE}\n")
    assert all(source in answer for source in SOURCES)
    assert "\ue200" not in answer
    assert "```mermaid" in answer  # the diagram's source, not a picture of it
    record = capture_record(done)
    assert record["method"] == "native_report_download"
    assert record["fidelity"] == "native_markdown" == done.response_fidelity
    assert record["report"]["nativeExport"]["state"] == "validated"
    assert record["report"]["nativeExport"]["name"] == "deep-research-report.md"
    assert record["report"]["completedLabel"].startswith("Research completed in")
    assert done.collection_status == "complete", done.collection_gaps
    assert done.collection_binding["messageId"]
    status = json.loads(Path(done.prompt_path).with_name("research-status.json").read_text())
    assert status["text"]


@pytest.mark.parametrize("shell", SHELLS)
def test_without_export_the_widget_state_gives_footnotes(seeded, sim, project, shell) -> None:
    done = complete(submit_research(project, sim, shell=shell, scenario="dr_no_export"))
    answer = Path(done.response_path).read_text()
    record = capture_record(done)
    assert record["method"] == "report_widget_state"
    assert done.response_fidelity == "native_markdown"
    assert done.collection_gaps == ["native_markdown_export"]
    assert done.collection_status == "partial"
    # Five tokens over four sources, numbered by first citation and defined at the end.
    assert record["citations"] == {"tokens": 5, "sources": 4, "unresolved": 0}
    assert "[^1]" in answer and "[^4]:" in answer
    assert all(source in answer for source in SOURCES)
    assert "```mermaid" in answer and "\ue200" not in answer


@pytest.mark.parametrize("shell", SHELLS)
def test_an_unresolved_citation_is_kept_and_counted(seeded, sim, project, shell) -> None:
    job = submit_research(project, sim, shell=shell, scenario="dr_no_export,dr_unresolved_citation")
    done = complete(job)
    answer = Path(done.response_path).read_text()
    record = capture_record(done)
    assert record["citations"]["unresolved"] == 1
    assert "Source `turn9search9` could not be resolved." in answer
    assert done.collection_gaps == ["unresolved_source_links", "native_markdown_export"]


@pytest.mark.parametrize("shell", SHELLS)
def test_token_like_text_in_code_is_never_rewritten(seeded, sim, project, shell) -> None:
    job = submit_research(project, sim, shell=shell, scenario="dr_no_export,dr_code_tokens")
    done = complete(job)
    answer = Path(done.response_path).read_text()
    assert "\ue200cite\ue202turn0search0\ue201" in answer  # inside the ```text fence
    assert "citeturn0search0" in answer and "`citeturn0search3`" in answer
    assert capture_record(done)["citations"]["tokens"] == 5


@pytest.mark.parametrize("shell", SHELLS)
def test_export_without_widget_state(seeded, sim, project, shell) -> None:
    done = complete(submit_research(project, sim, shell=shell, scenario="dr_no_widget_state"))
    record = capture_record(done)
    assert record["method"] == "native_report_download"
    assert done.collection_gaps == ["research_widget_state"]


@pytest.mark.parametrize("shell", SHELLS)
def test_the_rendered_report_is_the_last_resort(seeded, sim, project, shell) -> None:
    job = submit_research(project, sim, shell=shell, scenario="dr_no_export,dr_no_widget_state")
    done = complete(job)
    answer = Path(done.response_path).read_text()
    record = capture_record(done)
    assert record["method"] == "rendered_report"
    assert done.response_fidelity == "derived_markdown"
    assert fixture.REPORT_TITLE in answer
    assert "[1]" in answer and "[Diagram: rendered without its source]" in answer
    assert "Research completed in" not in answer
    assert done.collection_gaps == [
        "unresolved_source_links",
        "diagram_source:1",
        "native_markdown_export",
        "research_widget_state",
    ]
    assert record["citations"]["unresolved"] == record["citations"]["tokens"] > 0


@pytest.mark.parametrize("shell", SHELLS)
def test_a_clarifying_question_without_an_answer_is_saved(seeded, sim, project, shell) -> None:
    done = finished(submit_research(project, sim, shell=shell, scenario="dr_clarify").id)
    assert done.status == Status.FAILED
    assert done.error_code == "deep_research_needs_answer", done.error
    assert "Which archive formats" in done.error
    question = Path(done.prompt_path).with_name("research-question.md").read_text()
    assert question.startswith(fixture.CLARIFY_TEXT.split("\n")[0])
    assert done.prompt_send_state.value == "accepted" and done.chat_url
    # `oraculum status JOB` points at the saved question.
    from rich.console import Console

    from oraculum.cli.status_cmd import render_job
    from oraculum.service.status import status

    summary = status(done.id, caller=Caller(cwd=project)).to_json()["job"]
    shown = Console(record=True, width=300)
    render_job({"job": summary}, shown)
    assert f"research-question: {summary['research']['questionPath']}" in shown.export_text()


@pytest.mark.parametrize("shell", SHELLS)
def test_a_clarifying_question_is_answered_when_the_job_says_how(
    seeded, sim, project, shell
) -> None:
    job = submit_research(
        project, sim, shell=shell, scenario="dr_clarify", research_answer="Both, weigh speed."
    )
    done = complete(job)
    assert sim.state.user_messages()[-1].text.strip() == "Both, weigh speed."
    assert capture_record(done)["method"] == "native_report_download"
    assert Path(done.response_path).read_text().startswith(f"# {fixture.REPORT_TITLE}\n")


def test_a_ten_minute_research_has_no_stale_heartbeat_and_shows_researching(
    seeded, sim, project
) -> None:
    """The simulator says "Research completed in 10m" after 12 s of research, several times the
    4 s staleness window the worker beats against every 300 ms; every status read reconciles
    (which fails a job whose heartbeat went stale). The window leaves room for the worker's own
    start on a loaded machine, which is not what this test is about."""
    import time

    from rich.console import Console

    from homes import SIMULATOR_WORKER, write_global_config
    from oraculum.cli.status_cmd import render_job
    from oraculum.service.status import status

    config = write_global_config(
        {
            "browser": {
                "chatUrl": sim.chat_url(research_ms=12_000, research_reported_ms=600_000),
                "authUrl": sim.sign_in_url,
                "maxConcurrentJobs": 2,
            },
            "worker": {**SIMULATOR_WORKER, "heartbeatIntervalMs": 300, "staleHeartbeatMs": 4000},
        }
    )
    job = _submit(project, config, None)
    researching: set[str] = set()
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        summary = status(job.id, caller=Caller(cwd=project)).to_json()["job"]
        assert summary["status"] != "failed", summary.get("error")
        if summary.get("research", {}).get("state") == "researching":
            researching.add(summary["research"]["text"])
            shown = Console(record=True, width=300)
            render_job({"job": summary}, shown)
            assert f"researching: {summary['research']['text']}" in shown.export_text()
        if summary["status"] == "complete":
            break
        time.sleep(0.25)
    done = complete(job)
    assert researching, "no researching status line was shown"
    assert any("Researching" in text or "sources" in text for text in researching), researching
    record = capture_record(done)
    assert record["report"]["completedLabel"].startswith("Research completed in 10m")
    assert not any("stale" in (e.message or "").lower() for e in done.lifecycle_events)


def test_recollecting_a_research_job_reads_the_same_sources(seeded, sim, project) -> None:
    done = complete(submit_research(project, sim, scenario="dr_no_export"))
    Path(done.response_path).unlink()
    sent_before = len(sim.state.user_messages())
    job = recollected(done, project)
    assert len(sim.state.user_messages()) == sent_before  # nothing was sent
    assert capture_record(job)["method"] == "report_widget_state"
    answer = Path(job.response_path).read_text()
    assert answer.startswith(f"# {fixture.REPORT_TITLE}\n") and "[^1]" in answer
    assert job.collection_binding["messageId"] == done.collection_binding["messageId"]


def test_a_follow_up_answers_the_saved_question(seeded, sim, project) -> None:
    from oraculum.jobs.store import JobStore
    from oraculum.service.submit import submit

    asked = finished(submit_research(project, sim, scenario="dr_clarify").id)
    assert asked.error_code == "deep_research_needs_answer", asked.error
    (project / "notes.md").write_text("Weigh speed.\n")
    result = submit(
        "Both formats; weigh speed.",
        ["notes.md"],
        caller=Caller(cwd=project, session="s1"),
        preset="deep_research",
        follow_up_job=asked.id,
    )
    done = complete(JobStore().load(result.job["id"]))
    assert done.conversation_id == asked.conversation_id
    assert sim.state.user_messages()[-1].text.strip().startswith("Both formats; weigh speed.")
    assert Path(done.response_path).read_text().startswith(f"# {fixture.REPORT_TITLE}\n")
