"""What state a Grok page is in, decided from one observation (pure).

The states and their names are ChatGPT's (`providers.chatgpt.page_state.PageState`), so the
readiness failures map to the same codes for both providers.
"""

from __future__ import annotations

from dataclasses import dataclass

from oraculum.providers.chatgpt.page_state import (
    Classification,
    PageState,
    _first_match,
    origin_of,
)
from oraculum.providers.grok import vocabulary as vocab

__all__ = [
    "Classification",
    "GrokObservation",
    "PageState",
    "allowed_origins",
    "classify",
    "generation_failure",
    "rate_limited",
    "upload_error",
]


@dataclass(frozen=True)
class GrokObservation:
    url: str
    scoped_text: str  # banners, dialogs, the composer — never the messages
    login_cta: bool  # a control named "Sign in", "Continue with X", … outside the messages
    composer_present: bool  # the "Ask Grok anything" textbox
    editable: bool  # a contenteditable editor
    attach_present: bool  # an enabled "Attach" button


def allowed_origins(grok_url: str) -> frozenset[str]:
    return frozenset({*vocab.REAL_ORIGINS, origin_of(grok_url)})


def classify(observation: GrokObservation, origins: frozenset[str]) -> Classification:
    text = observation.scoped_text
    challenge = _first_match(text, vocab.CHALLENGE_PATTERNS)
    if challenge:
        if _first_match(text, vocab.CHALLENGE_SETTLING_PATTERNS):
            return Classification(PageState.UNKNOWN, "The verification page is settling.")
        return Classification(
            PageState.CHALLENGE_BLOCKING,
            "Grok is showing a challenge/verification page.",
            challenge,
        )
    outage = _first_match(text, vocab.OUTAGE_PATTERNS)
    if outage:
        return Classification(
            PageState.TRANSIENT_OUTAGE, "Grok is showing a transient outage/error page.", outage
        )
    if origin_of(observation.url) not in origins:
        return Classification(
            PageState.LOGIN_REQUIRED,
            "Grok redirected away from the expected chat origin.",
            observation.url,
        )
    if observation.login_cta:
        return Classification(
            PageState.LOGIN_REQUIRED, "Grok shows Sign in controls: the session is signed out."
        )
    if (observation.composer_present or observation.editable) and observation.attach_present:
        return Classification(PageState.READY, "The Grok composer is ready.")
    return Classification(PageState.UNKNOWN, "Grok page is not ready yet.")


def rate_limited(text: str) -> str | None:
    return _first_match(text, vocab.RATE_LIMIT_PATTERNS)


def upload_error(text: str) -> str | None:
    return _first_match(text, vocab.UPLOAD_ERROR_PATTERNS)


def generation_failure(text: str) -> str | None:
    return _first_match(text, vocab.GENERATION_FAILURE_PATTERNS)
