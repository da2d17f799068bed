"""The ChatGPT driver in real Chromium against the simulator, through real worker processes."""

from __future__ import annotations

from pathlib import Path

import pytest

from homes import bare_project, complete, finished, log_of  # noqa: F401 (bare_project: the fixture)
from oraculum.core.errors import OracleError
from oraculum.jobs.model import Status

from .conftest import (
    BLOCKED_PAGES,
    assert_failed_before_send,
    assert_happy_chatgpt,
    recollected,
    submit_chatgpt,
    write_config,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


MATRIX = [
    ("classic", "power", "thinking_heavy", "Extra High"),
    ("redesign", "power", "pro_extended", "Pro"),
    ("classic", "intelligence", "thinking_extended", "High"),
    ("redesign", "intelligence", "instant", "Instant"),
    ("classic", "legacy", "instant_auto_switch", None),
    ("redesign", "legacy", "thinking_light", None),
    ("classic", "chips", "pro_standard", "Pro"),
    ("redesign", "chips", "thinking_standard", "Thinking"),
]


def test_happy_path_on_both_shells_and_all_pickers(seeded, sim, project: Path) -> None:
    jobs = []
    for shell, picker, preset, shows in MATRIX:
        config = write_config(sim, shell=shell, picker=picker)
        jobs.append((submit_chatgpt(project, config, preset=preset), picker, shows))
    for job, picker, shows in jobs:
        assert_happy_chatgpt(job, complete(job), picker, shows)


@BLOCKED_PAGES
def test_blocked_pages_fail_with_their_code(seeded, sim, project, knobs, code, diagnostics) -> None:
    job = submit_chatgpt(project, write_config(sim, **knobs))
    assert_failed_before_send(finished(job.id), code, diagnostics)


def test_login_required_fails_as_auth_and_says_run_auth(revocable_seed, sim, project) -> None:
    job = submit_chatgpt(project, write_config(sim, scenario="login_expired"))
    done = finished(job.id)
    assert done.status == Status.FAILED
    assert done.error_code == "auth_login_required"
    assert "oraculum auth" in done.error
    assert Path(done.logs_dir, "preflight.url.txt").exists()


def test_refused_send_is_attempted_and_warns_of_duplicates(seeded, sim, project) -> None:
    job = submit_chatgpt(project, write_config(sim, scenario="rate_limit"))
    done = finished(job.id)
    assert done.status == Status.FAILED
    assert done.prompt_send_state.value == "attempted"
    assert done.error_code == "provider_rate_limited"
    assert "twice" in done.error or "duplicate" in done.error
    assert Path(done.logs_dir, "failure.png").exists()


def test_restored_draft_is_cleared_first(seeded, sim, project) -> None:
    draft = "an old unsent draft that must not be sent"
    job = submit_chatgpt(project, write_config(sim, draft=draft), prompt="Fresh question?")
    answer = Path(complete(job).response_path).read_text()
    assert "Fresh question?" in answer
    assert draft not in answer


def test_navigation_away_still_saves_the_jobs_own_answer(seeded, sim, project) -> None:
    job = submit_chatgpt(project, write_config(sim, scenario="navigate_away"))
    done = complete(job)
    answer = Path(done.response_path).read_text()
    assert f"context-{job.id}.tar.zst" in answer, (done.chat_url, log_of(done))
    navigations = [e for e in done.lifecycle_events if e.kind.value == "navigation"]
    assert navigations and all("another page" in e.message for e in navigations)


def test_stale_stop_control_is_recovered_by_reload(seeded, sim, project) -> None:
    job = submit_chatgpt(project, write_config(sim, scenario="stale_stop"))
    done = complete(job)
    assert "Stop control still present" in log_of(done)
    assert f"context-{job.id}.tar.zst" in Path(done.response_path).read_text()


def test_hidden_tab_freeze_is_reconciled_to_the_full_text(seeded, sim, project) -> None:
    job = submit_chatgpt(project, write_config(sim, scenario="hidden_tab", hidden_after_chars=30))
    done = complete(job)
    assert "reload recovered" in log_of(done)
    answer = Path(done.response_path).read_text()
    assert job.archive_sha256 in answer and "src/app.py" in answer


def test_generation_error_is_recovered_by_retry(seeded, sim, project) -> None:
    job = submit_chatgpt(project, write_config(sim, scenario="generation_error"))
    done = complete(job)
    assert "pressing Retry once" in log_of(done)


def test_follow_up_continues_the_same_conversation(seeded, sim, project) -> None:
    config = write_config(sim)
    first = complete(submit_chatgpt(project, config, prompt="First question"))
    second = complete(
        submit_chatgpt(
            project,
            config,
            prompt="Second question",
            chat_url=first.chat_url,
            conversation_id=first.conversation_id,
            follow_up_to=first.id,
        )
    )
    assert second.conversation_id == first.conversation_id
    conversation = sim.state.conversations[first.conversation_id]
    user_turns = [t for t in conversation.turns if t.role == "user"]
    assert len(user_turns) == 2
    assert "Second question" in Path(second.response_path).read_text()


def test_two_follow_ups_on_one_thread_never_run_at_once(seeded, sim, project) -> None:
    config = write_config(sim)
    first = complete(submit_chatgpt(project, config))
    running = submit_chatgpt(
        project, config, chat_url=first.chat_url, conversation_id=first.conversation_id
    )
    with pytest.raises(OracleError) as info:
        submit_chatgpt(
            project, config, chat_url=first.chat_url, conversation_id=first.conversation_id
        )
    assert info.value.code == "oracle_thread_busy"
    complete(running)


def test_earlier_turns_with_alarming_words_do_not_misclassify(seeded, sim, project) -> None:
    conversation = sim.seed_conversation(
        [
            "Why did my deploy fail?",
            "Cloudflare returned a rate limit page and then Something went wrong; "
            "try again later. Verify you are human was shown too.",
        ]
    )
    config = write_config(sim)
    job = submit_chatgpt(
        project,
        config,
        chat_url=sim.conversation_url(conversation),
        conversation_id=conversation,
        prompt="And now?",
    )
    done = complete(job)
    assert done.conversation_id == conversation
    assert "And now?" in Path(done.response_path).read_text()


def test_read_recollect_reacquires_the_turn_without_sending(seeded, sim, project) -> None:
    import time

    from oraculum.jobs.locks import RECOLLECT_LOCK, is_locked

    done = complete(submit_chatgpt(project, write_config(sim), prompt="Recollect me"))
    sent_before = len(sim.state.user_messages())
    job = recollected(done, project)
    assert job.collection_binding["messageId"] == done.collection_binding["messageId"]
    assert "Recollect me" in Path(job.response_path).read_text()
    assert len(sim.state.user_messages()) == sent_before  # nothing was sent
    deadline = time.monotonic() + 10
    while is_locked(RECOLLECT_LOCK, done.id) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not is_locked(RECOLLECT_LOCK, done.id)
