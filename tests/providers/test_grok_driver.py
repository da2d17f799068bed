"""The Grok Heavy driver in real Chromium against the Grok simulator, through real workers."""

from __future__ import annotations

import asyncio
import json
import time
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from homes import SIMULATOR_WORKER, bare_project, complete, finished, log_of, write_global_config  # noqa: F401 (bare_project: the fixture)
from oraculum.core.config import Config
from oraculum.core.errors import OracleError
from oraculum.jobs.model import Job, Status
from oraculum.providers.grok.model import select_heavy
from oraculum.providers.grok.page import GrokPage
from oraculum.service.caller import Caller
from oraculum.service.read import read
from oraculum.simulator import SimulatorThread

from .conftest import (
    BLOCKED_PAGES,
    assert_bound_after_archive,
    assert_failed_before_send,
    assert_follow_up_continues,
    assert_login_expired,
    error_details,
    kill_worker_mid_answer,
    recollect_in_browser,
    revived,
    simulator_page,
    site_config,
    site_fixtures,
    submit_provider_job,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

write_config = partial(site_config, "grokUrl")
grok_sim, grok_seeded, grok_revocable_seed = site_fixtures("grok", write_config)


def submit_grok(
    project: Path,
    config: Config,
    *,
    prompt: str = "Summarise the project.",
    follow_up: Job | None = None,
) -> Job:
    return submit_provider_job(project, config, "grok", "heavy", prompt=prompt, follow_up=follow_up)


def test_happy_path_saves_the_heavy_answer_bound_to_this_job(seeded, sim, project) -> None:
    job = submit_grok(project, write_config(sim))
    done = complete(job)
    answer = Path(done.response_path).read_text()
    assert job.archive_path.endswith(".tar.gz")
    assert f"context-{job.id}.tar.gz" in answer and "src/app.py" in answer
    assert "Summarise the project." in answer  # the prompt is quoted back
    assert "Heavy" in answer  # the simulator names the model it answered with
    assert "| File |" in answer or "| --- |" in answer  # the receipt table stays a table
    assert "```json" in answer  # the code block stays fenced
    assert done.prompt_send_state.value == "accepted"
    assert done.observed_selection["mode"] == "heavy"
    assert done.observed_selection["shows"].startswith("Heavy")
    assert done.chat_url and done.chat_url_verified
    assert done.chat_url.endswith(f"/c/{done.conversation_id}")
    binding = done.collection_binding
    assert binding["conversationId"] == done.conversation_id
    assert binding["responseIndex"] == 0
    assert binding["messageId"] and binding["turnSha256"]
    # The simulator's receipt links one signed URL on purpose: it is never saved, and named.
    assert done.collection_gaps == ["unresolved_source_links"]
    assert done.collection_status == "partial"
    assert "sig=" not in answer and "](https://" in answer  # the safe link kept its target
    assert done.response_fidelity == "derived_markdown"
    # The chrome and the thinking line are not part of the answer.
    assert "Regenerate" not in answer and "Thought for" not in answer
    record = json.loads(Path(done.logs_dir).parent.joinpath("response.capture.json").read_text())
    assert record["reasoningLabel"].startswith("Thought for")
    assert record["binding"] == binding
    assert not Path(done.runtime_profile_dir).exists()


def test_markdown_answer_is_collected_complete(seeded, sim, project) -> None:
    done = complete(submit_grok(project, write_config(sim, answer="markdown")))
    answer = Path(done.response_path).read_text()
    assert done.collection_status == "complete", done.collection_gaps
    assert done.response_fidelity == "exact_code"  # the one markdown block is the answer
    assert answer.startswith("# Simulated answer")
    assert f"context-{done.id}.tar.gz" in answer and "```python" in answer
    assert "| File | SHA-256 |" in answer and "[the docs](http" in answer


def test_follow_up_continues_the_same_conversation(seeded, sim, project) -> None:
    assert_follow_up_continues(sim, partial(submit_grok, project, write_config(sim)))


@BLOCKED_PAGES
def test_blocked_pages_fail_with_their_code(seeded, sim, project, knobs, code, diagnostics) -> None:
    done = finished(submit_grok(project, write_config(sim, **knobs)).id)
    assert_failed_before_send(done, code, diagnostics)


def test_login_expired_fails_as_auth_and_says_run_auth(revocable_seed, sim, project) -> None:
    done = finished(submit_grok(project, write_config(sim, scenario="login_expired")).id)
    assert_login_expired(done, "grok")
    assert Path(done.logs_dir, "preflight.url.txt").exists()


def test_refused_send_is_attempted_and_warns_of_duplicates(seeded, sim, project) -> None:
    done = finished(submit_grok(project, write_config(sim, scenario="rate_limit")).id)
    assert done.status == Status.FAILED
    assert done.error_code == "provider_rate_limited", done.error
    assert done.prompt_send_state.value == "attempted"
    assert "duplicate" in done.error or "twice" in done.error
    assert Path(done.logs_dir, "failure.png").exists()


def test_restored_draft_is_replaced_by_the_prompt(seeded, sim, project) -> None:
    draft = "an old unsent draft that must not be sent"
    job = submit_grok(project, write_config(sim, draft=draft), prompt="Fresh question?")
    answer = Path(complete(job).response_path).read_text()
    assert "Fresh question?" in answer and draft not in answer


@pytest.mark.parametrize("scenario", ["prefilled_thread", "extra_assistant"])
def test_answer_is_the_reply_after_this_jobs_archive(seeded, sim, project, scenario) -> None:
    """Another reply sits where a pre-send count would look; the archive's message decides."""
    done = complete(submit_grok(project, write_config(sim, scenario=scenario)))
    assert_bound_after_archive(done)


def test_navigation_away_still_saves_the_jobs_own_answer(seeded, sim, project) -> None:
    done = complete(submit_grok(project, write_config(sim, scenario="navigate_away")))
    assert f"context-{done.id}.tar.gz" in Path(done.response_path).read_text(), log_of(done)
    navigations = [e for e in done.lifecycle_events if e.kind.value == "navigation"]
    assert navigations and all("another page" in e.message for e in navigations)


def test_stale_stop_control_is_recovered_by_reload(seeded, sim, project) -> None:
    done = complete(submit_grok(project, write_config(sim, scenario="stale_stop")))
    assert "Stop control still present" in log_of(done)
    assert f"context-{done.id}.tar.gz" in Path(done.response_path).read_text()


def test_hidden_tab_freeze_is_reconciled_to_the_full_text(seeded, sim, project) -> None:
    config = write_config(sim, scenario="hidden_tab", hidden_after_chars=30)
    done = complete(submit_grok(project, config))
    assert "reload recovered" in log_of(done)
    assert f"context-{done.id}.tar.gz" in Path(done.response_path).read_text()


def test_generation_error_is_retried_once(seeded, sim, project) -> None:
    config = write_config(sim, scenario="generation_error", error_times=1)
    done = complete(submit_grok(project, config))
    assert "pressing Retry once" in log_of(done)
    answer = Path(done.response_path).read_text()
    assert "Something went wrong" not in answer and f"context-{done.id}.tar.gz" in answer


def test_generation_error_that_persists_fails_after_send(seeded, sim, project) -> None:
    config = write_config(sim, scenario="generation_error", error_times=5)
    done = finished(submit_grok(project, config).id)
    assert done.status == Status.FAILED
    assert done.error_code == "generation_failed", done.error
    assert done.prompt_send_state.value == "accepted"
    assert "do not resubmit" in done.error


def test_recollection_reacquires_the_same_reply_and_never_guesses(seeded, sim, project) -> None:
    config = write_config(sim)
    first = complete(submit_grok(project, config, prompt="First question"))
    done = complete(submit_grok(project, config, prompt="Second question", follow_up=first))
    saved = Path(done.response_path).read_text()
    again = asyncio.run(recollect_in_browser(sim, done, config))
    assert again.patch["collection_binding"] == done.collection_binding
    assert again.status == done.collection_status
    assert again.response_text == saved == Path(done.response_path).read_text()
    # A binding whose reply is gone is refused; the saved answer is left alone.
    gone = done.model_copy(
        update={"collection_binding": {**done.collection_binding, "messageId": "not-a-reply"}}
    )
    refused = asyncio.run(recollect_in_browser(sim, gone, config))
    assert refused.response_text is None
    assert refused.patch["recollection_needed"] is True
    assert "bound_message_absent" in refused.patch["recollection_error"]
    assert Path(done.response_path).read_text() == saved


def test_worker_killed_mid_answer_is_recollected_to_complete_through_read(
    seeded, sim, project
) -> None:
    """Issue 13 §3 for Grok: `oraculum read --recollect` reaches Grok's own capture, and a
    job that failed after its prompt was accepted turns complete when the answer is there."""
    job = submit_grok(project, write_config(sim, token_ms=150), prompt="Tell me " + "more " * 60)
    lost = kill_worker_mid_answer(job)  # its watchdog ends it
    assert lost.status == Status.FAILED and lost.error_code == "worker_lost"
    assert read(job.id, caller=Caller(cwd=project), action="recollect").to_json()["recollection"][
        "started"
    ]
    done = revived(job.id)
    assert done.status == Status.COMPLETE, log_of(done)
    answer = Path(done.response_path).read_text()
    assert answer.count("more") >= 60  # the whole reply, not the prefix seen when killed
    assert done.collection_binding["conversationId"] == lost.conversation_id


# Issue 37 §4: a reply that shows only its reasoning label during a silent pause is not the
# answer; the quiet window (no action bar) is shrunk for these tests.
TEST_QUIET_MS = 1500


def grok_config(sim: SimulatorThread, quiet_ms: int = TEST_QUIET_MS, **knobs: Any) -> Config:
    return write_global_config(
        {
            "browser": {"grokUrl": sim.chat_url(**knobs), "maxConcurrentJobs": 2},
            "worker": {**SIMULATOR_WORKER, "completionQuietMs": quiet_ms},
            "queue": {"maxQueuedPerSlot": 5},
        }
    )


@pytest.mark.parametrize("label", ["Reasoned for 2m", "Thinking…"])
def test_grok_silent_gap_with_a_label_only_reply_does_not_end_the_job_early(
    seeded, sim, project: Path, label: str
) -> None:
    """Between reasoning and answer "Stop model response" goes away and the reply's only text
    is a reasoning label: the job waits for the answer and saves it, never the label."""
    config = grok_config(sim, scenario="label_only_turn", silent_gap_ms=4000, reasoning_label=label)
    done = complete(submit_grok(project, config))
    answer = Path(done.response_path).read_text()
    assert done.archive_sha256 in answer and "src/app.py" in answer, answer
    assert label not in answer


def test_grok_late_action_bar_and_rerendered_reply_end_with_the_whole_answer(
    seeded, sim, project: Path
) -> None:
    config = grok_config(sim, quiet_ms=30_000, scenario="rerender_at_end", action_bar_delay_ms=2500)
    rerenders = len(sim.state.events_of("page:rerendered"))
    done = complete(submit_grok(project, config))
    answer = Path(done.response_path).read_text()
    assert done.archive_sha256 in answer and "src/app.py" in answer, answer
    assert len(sim.state.events_of("page:rerendered")) > rerenders
    assert "its action bar" in log_of(done)


# Issue 37 §2: uploads on a page that creates its file input only for the menu entry's click,
# and the precise code when the page offers no upload at all.


def test_lazy_file_input_upload_through_file_chooser_on_grok(seeded, sim, project) -> None:
    done = finished(submit_grok(project, write_config(sim, scenario="lazy_file_input")).id)
    assert done.status == Status.COMPLETE, f"{done.error_code}: {done.error}\n{log_of(done)}"
    assert f"context-{done.id}.tar.gz" in Path(done.response_path).read_text()
    assert "archive set through the file chooser" in log_of(done)


def test_no_upload_path_fails_upload_control_not_found_on_grok(seeded, sim, project) -> None:
    started = time.monotonic()
    done = finished(submit_grok(project, write_config(sim, scenario="no_upload_path")).id)
    assert_failed_before_send(done, "upload_control_not_found", "failure")
    details = error_details(done)
    assert "Attach" in details["wanted"]
    assert details["observed"] == ["Add text content"]
    assert time.monotonic() - started < 60


NO_HEAVY_PAGE = """
<form><div contenteditable="true" role="textbox" aria-label="Ask Grok anything"></div>
<button type="button" aria-label="Model select" aria-expanded="false">Auto</button></form>
<script>
  document.querySelector("button").onclick = (event) => {
    event.target.setAttribute("aria-expanded", "true");
    document.body.insertAdjacentHTML("beforeend",
      "<div role=menu><div role=menuitem>Fast</div><div role=menuitem>Expert</div></div>");
  };
</script>
"""


def test_a_model_menu_without_heavy_names_what_it_offered(sim) -> None:
    async def run() -> OracleError:
        async with simulator_page(sim) as page:
            await page.set_content(NO_HEAVY_PAGE)
            with pytest.raises(OracleError) as caught:
                await select_heavy(GrokPage(page), lambda _m: None)
            return caught.value

    error = asyncio.run(run())
    assert error.code == "model_selection_unverified"
    assert error.details == {"wanted": "Heavy", "observed": "Fast, Expert"}
    assert "'Fast, Expert'" in error.message
