"""What state a ChatGPT page is in, decided from one observation (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from oraculum.providers.chatgpt import vocabulary as vocab
from oraculum.providers.readiness import (
    Classification,
    PageState,
    blocker,
    first_match,
    origin_of,
)


@dataclass(frozen=True)
class PageObservation:
    url: str
    scoped_text: str  # banners, dialogs, composer region — never conversation turns
    login_cta: bool
    on_auth_page: bool
    me_status: int | None
    me_identity: bool  # the backend named an account (id or email)
    composer_ready: bool  # an editable composer and an enabled "Add files and more"
    work_composer: bool = False
    composer_seen: str = ""  # when not ready: the text fields the page shows instead


def allowed_origins(chat_url: str, auth_url: str) -> frozenset[str]:
    return frozenset({*vocab.REAL_ORIGINS, origin_of(chat_url), origin_of(auth_url)})


def classify(observation: PageObservation, origins: frozenset[str]) -> Classification:
    blocked = blocker(observation.scoped_text, "ChatGPT", vocab)
    if blocked is not None:
        return blocked
    if observation.me_status == 401:
        return Classification(PageState.LOGIN_REQUIRED, "ChatGPT login is required.", "me: 401")
    on_origin = origin_of(observation.url) in origins
    if "/auth/" in observation.url or observation.on_auth_page:
        if observation.me_identity:
            return Classification(
                PageState.AUTH_TRANSITIONING, "ChatGPT is finishing a sign-in redirect."
            )
        return Classification(
            PageState.LOGIN_REQUIRED, "ChatGPT is showing its login page.", observation.url
        )
    if not on_origin:
        return Classification(
            PageState.LOGIN_REQUIRED,
            "ChatGPT redirected away from the expected chat origin.",
            observation.url,
        )
    if observation.login_cta and not observation.me_identity:
        return Classification(
            PageState.LOGIN_REQUIRED, "ChatGPT shows public Log in/Sign up controls."
        )
    if observation.work_composer and not observation.composer_ready:
        return Classification(PageState.UNKNOWN, "The page shows the Work composer, not chat.")
    if observation.me_status in (200, 403) and observation.composer_ready:
        if observation.login_cta:
            return Classification(
                PageState.AUTH_TRANSITIONING, "The chat shell is still partly logged out."
            )
        return Classification(PageState.READY, "The chat composer is ready.")
    if observation.me_status in (200, 403):
        return Classification(
            PageState.UNKNOWN,
            "The ChatGPT composer is not ready.",
            observation.composer_seen,
            wanted=COMPOSER_WANTED,
        )
    return Classification(PageState.UNKNOWN, "ChatGPT page is not ready yet.")


COMPOSER_WANTED = (
    f'an editable textbox in the composer form, beside an enabled "{vocab.ADD_FILES_LABEL}"'
)


# What a page's scoped text says went wrong, read with the vocabulary's patterns.
rate_limited = partial(first_match, patterns=vocab.RATE_LIMIT_PATTERNS)
upload_error = partial(first_match, patterns=vocab.UPLOAD_ERROR_PATTERNS)
generation_failure = partial(first_match, patterns=vocab.GENERATION_FAILURE_PATTERNS)
