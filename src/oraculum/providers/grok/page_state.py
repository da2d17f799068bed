"""What state a Grok page is in, decided from one observation (pure).

The states are the provider-neutral ones of `providers.readiness`, so the readiness failures
map to the same codes for both providers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from oraculum.providers.grok import vocabulary as vocab
from oraculum.providers.readiness import (
    Classification,
    PageState,
    blocker,
    first_match,
    origin_of,
    site_origins,
)

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


# Where the page may be: the real site, or the configured chat URL (a look-alike).
allowed_origins = partial(site_origins, frozenset(vocab.REAL_ORIGINS))


def classify(observation: GrokObservation, origins: frozenset[str]) -> Classification:
    blocked = blocker(observation.scoped_text, "Grok", vocab)
    if blocked is not None:
        return blocked
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


# What a page's scoped text says went wrong, read with the vocabulary's patterns.
rate_limited = partial(first_match, patterns=vocab.RATE_LIMIT_PATTERNS)
upload_error = partial(first_match, patterns=vocab.UPLOAD_ERROR_PATTERNS)
generation_failure = partial(first_match, patterns=vocab.GENERATION_FAILURE_PATTERNS)
