"""The Grok page classifier (pure) and the small decisions beside it."""

from __future__ import annotations

import pytest

from oraculum.providers import composer_steps
from oraculum.providers.grok.model import observed_heavy, shows_heavy
from oraculum.providers.grok.page_state import (
    GrokObservation,
    PageState,
    allowed_origins,
    classify,
    generation_failure,
    upload_error,
)

ORIGINS = allowed_origins("http://127.0.0.1:8123/")


def observation(**changes: object) -> GrokObservation:
    base: dict = {
        "url": "http://127.0.0.1:8123/",
        "scoped_text": "Grok\nNew chat",
        "login_cta": False,
        "composer_present": True,
        "editable": True,
        "attach_present": True,
    }
    base.update(changes)
    return GrokObservation(**base)


def test_signed_in_composer_with_attach_is_ready() -> None:
    assert classify(observation(), ORIGINS).state == PageState.READY


def test_a_composer_that_has_not_hydrated_yet_is_still_ready_by_its_label() -> None:
    # Facts §5: the textbox "Ask Grok anything" or an editable entry, with Attach.
    assert classify(observation(editable=False), ORIGINS).state == PageState.READY
    assert classify(observation(composer_present=False), ORIGINS).state == PageState.READY


def test_without_attach_or_composer_the_page_is_not_ready_yet() -> None:
    assert classify(observation(attach_present=False), ORIGINS).state == PageState.UNKNOWN
    no_composer = observation(composer_present=False, editable=False)
    assert classify(no_composer, ORIGINS).state == PageState.UNKNOWN


def test_sign_in_controls_mean_login_required_even_with_a_composer() -> None:
    result = classify(observation(login_cta=True), ORIGINS)
    assert result.state == PageState.LOGIN_REQUIRED


def test_another_origin_is_login_required() -> None:
    result = classify(observation(url="https://accounts.x.ai/sign-in"), ORIGINS)
    assert result.state == PageState.LOGIN_REQUIRED
    assert result.evidence == "https://accounts.x.ai/sign-in"


def test_the_real_grok_origin_is_always_allowed() -> None:
    assert classify(observation(url="https://grok.com/c/abc"), ORIGINS).state == PageState.READY


@pytest.mark.parametrize(
    "text",
    [
        "Just a moment...\nVerify you are human by completing the action below.",
        "Performance & security by Cloudflare",
        "We noticed unusual activity from your network",
        "Suspicious activity detected",
        "Please complete the captcha",
    ],
)
def test_challenge_words_block(text: str) -> None:
    result = classify(observation(scoped_text=text, composer_present=False), ORIGINS)
    assert result.state == PageState.CHALLENGE_BLOCKING
    assert result.evidence


def test_a_challenge_that_is_passing_is_not_blocking() -> None:
    text = "Verification successful\nVerify you are human"
    assert classify(observation(scoped_text=text), ORIGINS).state == PageState.UNKNOWN


def test_outage_words_are_a_transient_outage_before_login_or_ready() -> None:
    text = "Something went wrong\nA network error occurred. Please try again later."
    result = classify(observation(scoped_text=text, login_cta=True), ORIGINS)
    assert result.state == PageState.TRANSIENT_OUTAGE


def test_challenge_wins_over_outage() -> None:
    text = "Something went wrong\nVerify you are human"
    assert classify(observation(scoped_text=text), ORIGINS).state == PageState.CHALLENGE_BLOCKING


def test_grok_generation_failure_text_is_recognised() -> None:
    text = "Something went wrong while generating a response. Please try again."
    assert generation_failure(text)
    assert generation_failure("A normal answer about generating responses.") is None


def upload_confirmed(composer_text: str, archive_name: str) -> bool:
    """The shared chip rule with Grok's words (its chip shows no progress to read)."""
    return composer_steps.upload_confirmed(
        composer_text, archive_name, busy=False, upload_error=upload_error
    )


def test_upload_is_confirmed_by_the_archive_name_without_an_error() -> None:
    assert upload_confirmed("context-abc.tar.gz\nUploading…", "context-abc.tar.gz")
    assert not upload_confirmed("context-abc.tar.gz\nUpload failed", "context-abc.tar.gz")
    assert not upload_confirmed("other.tar.gz", "context-abc.tar.gz")


def test_heavy_is_recognised_by_its_prefix_only() -> None:
    assert shows_heavy("Heavy")
    assert shows_heavy(" Heavy Team of experts ")
    assert not shows_heavy("Heavyweight")
    assert not shows_heavy("Auto")
    assert observed_heavy("Heavy")["mode"] == "heavy"
