"""The Gemini driver in real Chromium against the Gemini simulator, through real workers.

One simulator and one signed-in seed serve the module (signing in is the slow part).
"""

from __future__ import annotations

import asyncio
import json
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from homes import bare_project, complete, finished, log_of  # noqa: F401 (bare_project: the fixture)
from oraculum.cli import main
from oraculum.core.config import Config
from oraculum.core.errors import OracleError
from oraculum.jobs.model import EventKind, Job, Status
from oraculum.providers.gemini.model import select_mode
from oraculum.providers.gemini.page import GeminiPage
from oraculum.service.caller import Caller
from oraculum.service.read import read

from .conftest import (
    BLOCKED_PAGES,
    assert_bound_after_archive,
    assert_failed_before_send,
    assert_follow_up_continues,
    assert_login_expired,
    kill_worker_mid_answer,
    recollect_in_browser,
    revived,
    simulator_page,
    site_config,
    site_fixtures,
    submit_provider_job,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

write_config = partial(site_config, "geminiUrl")
gemini_sim, gemini_seeded, gemini_revocable_seed = site_fixtures("gemini", write_config)


def submit_gemini(
    project: Path,
    config: Config,
    *,
    prompt: str = "Summarise the project.",
    mode: str = "pro",
    follow_up: Job | None = None,
) -> Job:
    return submit_provider_job(project, config, "gemini", mode, prompt=prompt, follow_up=follow_up)


def test_happy_path_saves_the_answer_in_the_chosen_mode(seeded, sim, project) -> None:
    job = submit_gemini(project, write_config(sim))
    done = complete(job)
    answer = Path(done.response_path).read_text()
    assert job.archive_path.endswith(".tar.gz")
    assert f"context-{job.id}.tar.gz" in answer and "src/app.py" in answer
    assert "Summarise the project." in answer
    assert "Gemini · Pro" in answer  # the simulator names the mode it answered in
    assert "```json" in answer  # the code block stays fenced, its header not in it
    assert "Copy code" not in answer and "Good response" not in answer
    assert done.prompt_send_state.value == "accepted"
    assert done.observed_selection == {
        "picker": "mode_picker",
        "shows": "Pro",
        "mode": "pro",
        "family": "gemini",
        "effort": "pro",
        "verification": "strong",
    }
    assert done.chat_url and done.chat_url_verified
    assert done.chat_url.endswith(f"/app/{done.conversation_id}")
    binding = done.collection_binding
    assert binding["conversationId"] == done.conversation_id
    assert binding["responseIndex"] == 0 and binding["messageId"]
    assert not Path(done.runtime_profile_dir).exists()


def test_markdown_answer_keeps_its_code_blocks(seeded, sim, project) -> None:
    done = complete(submit_gemini(project, write_config(sim, answer="markdown"), mode="fast"))
    answer = Path(done.response_path).read_text()
    assert done.collection_status == "complete", done.collection_gaps
    assert done.response_fidelity == "exact_code"
    assert answer.startswith("# Simulated answer")
    assert "```python" in answer and "| File | SHA-256 |" in answer
    assert done.observed_selection["shows"] == "Fast"


def test_follow_up_continues_the_same_conversation(seeded, sim, project) -> None:
    assert_follow_up_continues(sim, partial(submit_gemini, project, write_config(sim)))


@BLOCKED_PAGES
def test_blocked_pages_fail_with_their_code(seeded, sim, project, knobs, code, diagnostics) -> None:
    """Challenge, outage, and an upload the page reports failed: each before send."""
    done = finished(submit_gemini(project, write_config(sim, **knobs)).id)
    assert_failed_before_send(done, code, diagnostics)


def test_usage_limit_is_rate_limited_and_warns_of_duplicates(seeded, sim, project) -> None:
    done = finished(submit_gemini(project, write_config(sim, scenario="rate_limit")).id)
    assert done.status == Status.FAILED
    assert done.error_code == "provider_rate_limited", done.error
    assert "reached your limit" in done.error
    assert done.prompt_send_state.value == "attempted"
    assert "twice" in done.error or "duplicate" in done.error


def test_login_expired_fails_as_auth_and_says_run_auth(revocable_seed, sim, project) -> None:
    """Signed out, Gemini still shows a composer and a Sign in link: a job refuses it."""
    done = finished(submit_gemini(project, write_config(sim, scenario="login_expired")).id)
    assert_login_expired(done, "gemini")


@pytest.mark.parametrize("scenario", ["prefilled_thread", "extra_assistant"])
def test_answer_is_the_reply_after_this_jobs_archive(seeded, sim, project, scenario) -> None:
    """An earlier reply sits where a pre-send count would look; the archive's query decides."""
    done = complete(submit_gemini(project, write_config(sim, scenario=scenario)))
    assert_bound_after_archive(done)


def test_lazy_file_input_upload_through_the_file_chooser(seeded, sim, project) -> None:
    done = complete(submit_gemini(project, write_config(sim, scenario="lazy_file_input")))
    assert "archive set through the file chooser" in log_of(done)


def test_deep_think_is_chosen_where_the_account_has_it(seeded, sim, project) -> None:
    config = write_config(sim, scenario="gemini_deep_think")
    done = complete(submit_gemini(project, config, mode="deep_think"))
    assert done.observed_selection["shows"] == "Deep Think"
    assert "Gemini · Deep_Think" in Path(done.response_path).read_text()


def test_deep_think_without_it_names_the_modes_offered(seeded, sim, project) -> None:
    done = finished(submit_gemini(project, write_config(sim), mode="deep_think").id)
    assert done.status == Status.FAILED
    assert done.error_code == "model_selection_unverified", done.error
    assert done.error_details == {"wanted": "Deep Think", "observed": "Fast, Thinking, Pro"}
    assert done.prompt_send_state.value == "not_sent"


def test_recollection_reacquires_the_same_reply(seeded, sim, project) -> None:
    config = write_config(sim)
    first = complete(submit_gemini(project, config, prompt="First question"))
    done = complete(submit_gemini(project, config, prompt="Second question", follow_up=first))
    saved = Path(done.response_path).read_text()
    again = asyncio.run(recollect_in_browser(sim, done, config))
    assert again.patch["collection_binding"] == done.collection_binding
    assert again.response_text == saved


def test_worker_killed_mid_answer_is_recollected_to_complete(seeded, sim, project) -> None:
    job = submit_gemini(project, write_config(sim, token_ms=150), prompt="Tell me " + "more " * 60)
    lost = kill_worker_mid_answer(job)
    assert lost.status == Status.FAILED and lost.error_code == "worker_lost"
    assert read(job.id, caller=Caller(cwd=project), action="recollect").to_json()["recollection"][
        "started"
    ]
    done = revived(job.id)
    assert done.status == Status.COMPLETE, log_of(done)
    assert Path(done.response_path).read_text().count("more") >= 60
    assert done.collection_binding["conversationId"] == lost.conversation_id


SIGNED_OUT_PICKER = """
<header><a href="/ServiceLogin">Sign in</a></header>
<div class="input-area"><rich-textarea><div contenteditable="true" role="textbox"></div>
</rich-textarea>
<button data-test-id="bard-mode-menu-button" aria-label="Open mode picker, currently Fast"
 aria-expanded="false">Fast</button></div>
<script>
  document.querySelector("button").onclick = (event) => {
    event.target.setAttribute("aria-expanded", "true");
    document.body.insertAdjacentHTML("beforeend", "<div role=menu data-test-id=gem-mode-menu>"
      + "<gem-menu-item role=menuitem><span class=label>Fast</span></gem-menu-item>"
      + "<gem-menu-item role=menuitem aria-disabled=true><span class=label>Pro</span>"
      + "</gem-menu-item></div>");
  };
</script>
"""


def test_a_signed_out_picker_says_sign_in(sim) -> None:
    async def run() -> OracleError:
        async with simulator_page(sim) as page:
            await page.set_content(SIGNED_OUT_PICKER)
            with pytest.raises(OracleError) as caught:
                await select_mode(GeminiPage(page), "pro", lambda _m: None)
            return caught.value

    error = asyncio.run(run())
    assert error.code == "auth_login_required"
    assert "oraculum auth gemini" in (error.suggested_next_step or "")


def test_capture_record_names_the_binding(seeded, sim, project) -> None:
    done = complete(submit_gemini(project, write_config(sim), mode="thinking"))
    record = json.loads(Path(done.logs_dir).parent.joinpath("response.capture.json").read_text())
    assert record["binding"] == done.collection_binding
    assert done.observed_selection["shows"] == "Thinking"


def test_consent_over_the_input_area_is_rejected_never_accepted(seeded, sim, project) -> None:
    """The obstacle layer with Gemini's words: Google's consent goes by its reject button."""
    sim.state.events.clear()
    done = complete(submit_gemini(project, write_config(sim, scenario="obstacle_consent")))
    pressed = [e["button"] for e in sim.state.events_of("page:obstacle_button")]
    assert pressed == ["Reject non-essential"]
    assert any(e.kind == EventKind.OBSTACLE for e in done.lifecycle_events)


def test_unclearable_modal_fails_page_obstructed_before_send(seeded, sim, project) -> None:
    sim.state.events.clear()
    done = finished(submit_gemini(project, write_config(sim, scenario="obstacle_unclearable")).id)
    assert done.status == Status.FAILED and done.error_code == "page_obstructed", log_of(done)
    assert done.prompt_send_state.value == "not_sent"
    assert sim.state.events_of("page:obstacle_button") == []


def gemini_doctor(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["--json", "doctor", "--provider", "gemini", "--live"])
    return code, json.loads(capsys.readouterr().out)


def test_live_doctor_is_green_on_the_gemini_page_and_changes_nothing(
    seeded, sim, project, monkeypatch, capsys
) -> None:
    monkeypatch.chdir(project)
    write_config(sim)
    sent, uploaded = len(sim.state.user_messages()), len(sim.state.uploads)
    code, report = gemini_doctor(capsys)
    assert code == 0, report
    checks = {c["check"]: c for c in report["checks"]}
    assert checks["seed identity"]["status"] == "ok"
    assert "demo@example.com" in checks["seed identity"]["detail"]
    entries = {e["entry"]: e for e in report["live"]["entries"]}
    assert set(entries) == {"composer", "upload & tools", "upload entry", "mode picker"}
    assert all(e["ok"] for e in entries.values()), entries
    assert entries["mode picker"]["found"].startswith("currently ")
    assert len(sim.state.user_messages()) == sent and len(sim.state.uploads) == uploaded


def test_live_doctor_names_a_missing_upload_entry(
    seeded, sim, project, monkeypatch, capsys
) -> None:
    monkeypatch.chdir(project)
    write_config(sim, scenario="no_upload_path")
    code, report = gemini_doctor(capsys)
    assert code != 0
    entries = {e["entry"]: e for e in report["live"]["entries"]}
    assert entries["upload entry"]["ok"] is False
    assert entries["upload entry"]["found"] == "Add from Drive, Canvas, Deep research"
    checks = {c["check"]: c for c in report["checks"]}
    assert checks["live vocabulary"]["status"] == "fail"


@pytest.mark.parametrize(("mode", "shows"), [("pro", "专业"), ("fast", "快速")])
def test_a_chinese_page_is_driven_by_structure_and_its_own_words(
    seeded, sim, project, mode: str, shows: str
) -> None:
    """zh-CN: every label the driver reads is Chinese (issue 42 §2: Gemini on the same locale
    mechanism); the mode is verified by its Chinese name and recorded as the page shows it."""
    done = complete(submit_gemini(project, write_config(sim, locale="zh-cn"), mode=mode))
    answer = Path(done.response_path).read_text()
    assert f"context-{done.id}.tar.gz" in answer and "Summarise the project." in answer
    assert done.observed_selection["shows"] == shows
    assert done.observed_selection["mode"] == mode
    assert done.prompt_send_state.value == "accepted"
    assert done.chat_url and done.chat_url.endswith(f"/app/{done.conversation_id}")
