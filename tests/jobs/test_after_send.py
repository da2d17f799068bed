"""Raw browser errors get precise, retryable codes; the send state is always told (§3)."""

from __future__ import annotations

import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from oraculum.browser.errors import classify_browser_error
from oraculum.core.errors import OracleError
from oraculum.jobs import transitions
from oraculum.jobs.model import Phase, PromptSendState, utc_now
from oraculum.providers.base import with_send_warning


@pytest.mark.parametrize(
    ("message", "code"),
    [
        (
            "Page.goto: net::ERR_CONNECTION_REFUSED at http://127.0.0.1:9/c/x",
            "provider_unreachable",
        ),
        ("net::ERR_NAME_NOT_RESOLVED at https://chatgpt.com/", "provider_unreachable"),
        ("net::ERR_INTERNET_DISCONNECTED", "provider_unreachable"),
        ("Target page, context or browser has been closed", "browser_crashed"),
        ("Page.evaluate: Target crashed", "browser_crashed"),
        ("Something odd", "browser_error"),
    ],
)
def test_raw_browser_errors_get_precise_codes(message: str, code: str) -> None:
    error = classify_browser_error(PlaywrightError(message))
    assert error.code == code
    assert error.retryable == (code != "browser_error")
    assert error.details["browserError"] == message.splitlines()[0]


def test_playwright_timeout_is_browser_timeout() -> None:
    assert classify_browser_error(PlaywrightTimeout("Timeout 15000ms")).code == "browser_timeout"


def test_an_oracle_error_passes_through() -> None:
    original = OracleError("generation_failed", "x")
    assert classify_browser_error(original) is original


def _job(make_job, state: PromptSendState, chat_url: str | None):
    job = make_job()
    job = transitions.transition(job, Phase.AWAITING_RESPONSE, at=utc_now(), source="t")
    return job.model_copy(update={"prompt_send_state": state, "chat_url": chat_url})


def test_send_warning_follows_the_send_state(make_job) -> None:
    fresh = with_send_warning(
        OracleError("browser_error", "Broke."), _job(make_job, PromptSendState.NOT_SENT, None)
    )
    assert fresh.message == "Broke." and fresh.suggested_next_step is None
    attempted = _job(make_job, PromptSendState.ATTEMPTED, None)
    assert (
        "may already have been sent"
        in with_send_warning(OracleError("browser_error", "B."), attempted).message
    )
    accepted = _job(make_job, PromptSendState.ACCEPTED, "http://127.0.0.1:1/c/abc")
    error = with_send_warning(OracleError("provider_unreachable", "Gone."), accepted)
    assert "already sent and accepted" in error.message
    assert f"oraculum read {accepted.id} --recollect" in (error.suggested_next_step or "")


def _failed_after_send(make_job, state: PromptSendState, chat_url: str | None):
    job = _job(make_job, state, chat_url)
    return transitions.end(
        job, Phase.FAILED, at=utc_now(), source="t", message="lost", error="lost",
        error_code="worker_lost",
    )  # fmt: skip


def test_revive_completes_a_failed_job_whose_prompt_was_accepted(make_job) -> None:
    failed = _failed_after_send(make_job, PromptSendState.ACCEPTED, "http://127.0.0.1:1/c/abc")
    revived = transitions.revive(
        failed, Phase.COMPLETE, at=utc_now(), source="r", message="found it",
        patch={"collection_status": "complete"},
    )  # fmt: skip
    assert revived.status.value == "complete" and revived.phase == Phase.COMPLETE
    assert revived.error is None and revived.error_code is None
    assert revived.collection_status == "complete"
    assert revived.lifecycle_events[-1].message == "found it"


@pytest.mark.parametrize(
    ("state", "chat_url"),
    [(PromptSendState.ATTEMPTED, "http://127.0.0.1:1/c/abc"), (PromptSendState.ACCEPTED, None)],
)
def test_revive_refuses_without_an_accepted_prompt_in_a_known_conversation(
    make_job, state: PromptSendState, chat_url: str | None
) -> None:
    failed = _failed_after_send(make_job, state, chat_url)
    with pytest.raises(transitions.TransitionError):
        transitions.revive(failed, Phase.COMPLETE, at=utc_now(), source="r", message="m")


def test_revive_never_touches_an_open_or_cancelled_job(make_job) -> None:
    open_job = _job(make_job, PromptSendState.ACCEPTED, "http://127.0.0.1:1/c/abc")
    with pytest.raises(transitions.TransitionError):
        transitions.revive(open_job, Phase.COMPLETE, at=utc_now(), source="r", message="m")
