"""What state a Gemini page is in, decided from one observation (pure).

Signed out, Gemini still shows a working composer with a "Sign in" link (facts §1.2), so the
link alone is not a blocked page; but a job needs an account (uploads, modes, saved chats),
so a composer without the account marker is ``login_required`` for a job.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from urllib.parse import urlsplit

from oraculum.providers.gemini import vocabulary as vocab
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
    "GeminiObservation",
    "PageState",
    "allowed_origins",
    "classify",
    "generation_failure",
    "rate_limited",
    "upload_error",
]


@dataclass(frozen=True)
class GeminiObservation:
    url: str
    scoped_text: str  # banners, dialogs, the composer — never the turns
    signed_in: bool  # the Google Account link (facts §1.2)
    login_cta: bool  # a visible "Sign in" control outside the turns
    composer_present: bool  # the rich-textarea
    editable: bool  # its contenteditable editor
    tools_present: bool  # an enabled "Upload & tools" button


# Where the page may be: the real site, or the configured chat URL (a look-alike).
allowed_origins = partial(site_origins, frozenset(vocab.REAL_ORIGINS))


def classify(observation: GeminiObservation, origins: frozenset[str]) -> Classification:
    blocked = blocker(observation.scoped_text, "Gemini", vocab)
    if blocked is not None:
        return blocked
    if urlsplit(observation.url).hostname in vocab.SIGN_IN_HOSTS:
        return Classification(
            PageState.LOGIN_REQUIRED, "Gemini sent the page to Google's sign-in.", observation.url
        )
    if origin_of(observation.url) not in origins:
        return Classification(
            PageState.LOGIN_REQUIRED,
            "Gemini redirected away from the expected app origin.",
            observation.url,
        )
    usable = (observation.composer_present or observation.editable) and observation.tools_present
    if usable and observation.signed_in:
        return Classification(PageState.READY, "The Gemini composer is ready (signed in).")
    if observation.login_cta and not observation.signed_in:
        return Classification(
            PageState.LOGIN_REQUIRED,
            "Gemini is signed out (its composer works, but it offers Sign in): a job needs a "
            "signed-in Google account.",
        )
    return Classification(PageState.UNKNOWN, "Gemini page is not ready yet.")


# What a page's scoped text says went wrong, read with the vocabulary's patterns.
rate_limited = partial(first_match, patterns=vocab.RATE_LIMIT_PATTERNS)
upload_error = partial(first_match, patterns=vocab.UPLOAD_ERROR_PATTERNS)
generation_failure = partial(first_match, patterns=vocab.GENERATION_FAILURE_PATTERNS)
