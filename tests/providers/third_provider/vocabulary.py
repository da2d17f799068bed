"""Every label, selector and text signal of the third provider's web app that its driver
matches (the provider's one vocabulary module)."""

from __future__ import annotations

import re
from typing import Any

from oraculum.providers import shared_vocabulary as shared
from oraculum.providers.obstacle_guard import ObstacleVocabulary
from oraculum.providers.obstacles import DismissVocabulary

COMPOSER_SELECTOR = "#composer"
PROMPT_LABEL = "Message Third"
FILE_INPUT_SELECTOR = 'input[type="file"]'
UPLOAD_ENTRY = re.compile(r"^\s*Upload\s*$")  # the site has no attach menu: never matched
SEND_LABEL = "Send"
STOP_SELECTOR = "#stop:not([hidden])"
RETRY_LABEL = "Retry"
SIGN_IN_NAMES = ("sign in",)
TURN_SELECTOR = "#thread .turn"
USER_SELECTOR = "#thread .turn.user"
BOT_SELECTOR = "#thread .turn.bot"
BODY_SELECTOR = ".body"
STREAMING_CLASS = "streaming"
ACTION_SELECTOR = 'button[aria-label="Copy"]'

CHALLENGE_PATTERNS = (re.compile(r"verify you are human", re.I),)
CHALLENGE_SETTLING_PATTERNS: tuple[re.Pattern[str], ...] = ()
OUTAGE_PATTERNS = shared.OUTAGE_PATTERNS
RATE_LIMIT_PATTERNS = shared.RATE_LIMIT_PATTERNS
GENERATION_FAILURE_PATTERNS = shared.GENERATION_FAILURE_PATTERNS


def obstacle_vocabulary() -> ObstacleVocabulary:
    return ObstacleVocabulary(
        policy=DismissVocabulary(dismiss=shared.DISMISS_LABELS, forbidden=shared.FORBIDDEN_LABELS),
        target_selector=COMPOSER_SELECTOR,
        target_has=FILE_INPUT_SELECTOR,
    )


def page_vocabulary() -> dict[str, Any]:
    return {
        "promptLabel": PROMPT_LABEL,
        "sendLabel": SEND_LABEL,
        "stopSelector": STOP_SELECTOR,
        "signInNames": list(SIGN_IN_NAMES),
        "turnSelector": TURN_SELECTOR,
        "userSelector": USER_SELECTOR,
        "botSelector": BOT_SELECTOR,
        "bodySelector": BODY_SELECTOR,
        "streamingClass": STREAMING_CLASS,
        "actionSelector": ACTION_SELECTOR,
    }
