"""The ChatGPT page classifier over observations (pure)."""

from __future__ import annotations

import pytest

from oraculum.core.providers import CHATGPT
from oraculum.providers.adoption import strip_url
from oraculum.providers.chatgpt.page_state import (
    PageObservation,
    PageState,
    allowed_origins,
    classify,
)

ORIGINS = allowed_origins("http://127.0.0.1:8765/", "http://127.0.0.1:8765/auth/login")
READY = PageObservation(
    url="http://127.0.0.1:8765/",
    scoped_text="ChatGPT can make mistakes. Check important info.",
    login_cta=False,
    on_auth_page=False,
    me_status=200,
    me_identity=True,
    composer_ready=True,
)


def obs(**changes) -> PageObservation:
    return PageObservation(**{**READY.__dict__, **changes})


@pytest.mark.parametrize(
    ("changes", "state"),
    [
        ({}, PageState.READY),
        ({"scoped_text": "Just a moment..."}, PageState.CHALLENGE_BLOCKING),
        ({"scoped_text": "Verify you are human"}, PageState.CHALLENGE_BLOCKING),
        ({"scoped_text": "Verify you are human\nVerification successful"}, PageState.UNKNOWN),
        ({"scoped_text": "Something went wrong. Try again later."}, PageState.TRANSIENT_OUTAGE),
        ({"scoped_text": "Too many requests"}, PageState.TRANSIENT_OUTAGE),
        ({"me_status": 401, "me_identity": False}, PageState.LOGIN_REQUIRED),
        (
            {"url": "http://127.0.0.1:8765/auth/login", "me_identity": False},
            PageState.LOGIN_REQUIRED,
        ),
        ({"url": "http://127.0.0.1:8765/auth/callback"}, PageState.AUTH_TRANSITIONING),
        ({"url": "https://example.com/"}, PageState.LOGIN_REQUIRED),
        ({"login_cta": True, "me_identity": False, "me_status": 200}, PageState.LOGIN_REQUIRED),
        ({"login_cta": True}, PageState.AUTH_TRANSITIONING),
        ({"composer_ready": False}, PageState.UNKNOWN),
        ({"me_status": 403}, PageState.READY),  # a 403 alone is not conclusive
        ({"me_status": 0, "composer_ready": True}, PageState.UNKNOWN),
    ],
)
def test_classification(changes, state) -> None:
    assert classify(obs(**changes), ORIGINS).state == state


def test_challenge_beats_everything() -> None:
    result = classify(obs(scoped_text="Cloudflare", me_status=401), ORIGINS)
    assert result.state == PageState.CHALLENGE_BLOCKING
    assert result.evidence == "Cloudflare"


def test_real_origins_are_allowed() -> None:
    assert classify(obs(url="https://chatgpt.com/c/abc-123"), ORIGINS).state == PageState.READY


@pytest.mark.parametrize(
    ("url", "conversation"),
    [
        (
            "https://chatgpt.com/c/6760a1b2-0000-4000-8000-1234567890ab",
            "6760a1b2-0000-4000-8000-1234567890ab",
        ),
        ("https://chatgpt.com/c/abc-123?model=x#frag", "abc-123"),
        ("https://chatgpt.com/chat/abc", "abc"),
        ("https://chatgpt.com/", None),
        ("https://chatgpt.com/gpts", None),
        ("https://chatgpt.com/c/", None),
    ],
)
def test_conversation_ids(url: str, conversation: str | None) -> None:
    assert CHATGPT.conversation_id(url) == conversation


def test_strip_url() -> None:
    assert strip_url("https://chatgpt.com/c/abc?x=1#y") == "https://chatgpt.com/c/abc"


def test_a_composer_that_is_not_ready_names_what_was_wanted_and_found() -> None:
    seen = 'textbox "Message ChatGPT" in the composer form (not editable)'
    result = classify(obs(composer_ready=False, composer_seen=seen), ORIGINS)
    assert result.state == PageState.UNKNOWN
    assert result.evidence == seen
    assert "editable textbox in the composer form" in result.wanted
    # The Work composer is a different product: never ready, whatever else is found.
    work = classify(obs(composer_ready=False, work_composer=True), ORIGINS)
    assert work.state == PageState.UNKNOWN and "Work composer" in work.reason
