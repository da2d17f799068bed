"""Every label, selector and text signal of the Grok web UI that oraculum matches (facts §5).

A Grok UI change is a change to this module only. Labels are matched exactly unless a name
says "prefix" or "pattern"; in-page scripts get what they need through ``page_vocabulary``.
"""

from __future__ import annotations

import re
from typing import Any

from oraculum.providers import shared_vocabulary as shared
from oraculum.providers.grok.locales import CODES
from oraculum.providers.locales import alternatives, load_locales
from oraculum.providers.obstacle_guard import ObstacleVocabulary
from oraculum.providers.obstacles import DismissVocabulary

# UI languages: the labels below come from the locale tables (`grok/locales/`), every
# language's spellings matched; in-page scripts get the default (first) spelling.
LOCALES = load_locales("oraculum.providers.grok.locales", CODES)
_spell = LOCALES.spellings

# Origins -----------------------------------------------------------------------------------

REAL_ORIGINS = ("https://grok.com",)

# Composer ----------------------------------------------------------------------------------

COMPOSER_LABELS = _spell("composer")
EDITABLE_SELECTOR = '[contenteditable="true"]'
COMPOSER_REGION_SELECTOR = "form"  # the query bar: the form holding the editor
ATTACH_LABELS = _spell("attach")
ATTACH_LABEL = ATTACH_LABELS[0]  # how messages name it
FILE_INPUT_SELECTOR = 'input[type="file"]'
# The Attach menu's upload entry (a page may create its file input only for that click).
UPLOAD_ENTRY = re.compile(rf"^\s*(?:{alternatives(_spell('upload_entry'))})\s*$", re.I)
MENU_SELECTORS = ('[role="menu"]', '[role="listbox"]')  # where open menus' entries are read
SUBMIT_LABELS = _spell("submit")
SUBMIT_LABEL = SUBMIT_LABELS[0]
STOP_LABELS = _spell("stop")
RETRY_LABELS = _spell("retry")
RETRY_LABEL = RETRY_LABELS[0]

# Model select ------------------------------------------------------------------------------

MODEL_SELECT_LABELS = _spell("model_select")
MODEL_SELECT_LABEL = MODEL_SELECT_LABELS[0]
HEAVY = "Heavy"
# An item's accessible name is its title, then a description ("Heavy Team of experts").
HEAVY_ITEM_PATTERN = re.compile(rf"^{HEAVY}\b")
MODEL_ITEM_ROLES = ("menuitemradio", "menuitem", "option", "button")
SIGN_IN_LABELS = _spell("sign_in")

# Messages ----------------------------------------------------------------------------------

MESSAGE_BUBBLE_SELECTOR = ".message-bubble"
ASSISTANT_ROLE_SELECTOR = '[data-message-author-role="assistant"]'
# The last resort for finding messages: a div carrying all of these classes.
ROW_FALLBACK_CLASSES = ("group", "flex", "flex-col", "justify-center")
# The row a bubble belongs to (it holds the action buttons).
MESSAGE_ROOT_SELECTOR = '[data-message-author-role], [data-testid*="message"], .group'
USER_MESSAGE_SELECTOR = '[data-testid="user-message"], [data-message-author-role="user"]'
USER_EDIT_SELECTOR = 'button[aria-label="Edit"]'  # only a user's own message can be edited
# Message identity: a row's id is "response-<message id>".
MESSAGE_ID_PREFIX = "response-"
# Chrome removed from a reply before it is read: buttons, the action labels, the thinking line.
CHROME_SELECTORS = (
    "button",
    '[aria-label="Copy"]',
    '[aria-label="Like"]',
    '[aria-label="Dislike"]',
    '[aria-label="Regenerate"]',
    '[aria-label="More actions"]',
    ".thinking-container",
    '[role="button"]',
)
# Notices inside a reply known only by their whole text ("Thought for 25s"): the same words
# as every chat site's (issue 37 §6).
CHROME_PATTERNS = shared.TURN_CHROME_PATTERNS
THINKING_SELECTOR = ".thinking-container"
THOUGHT_FOR_PREFIX = "Thought for"
EXECUTED_CODE_PREFIX = "executed code"  # tool-output messages, not answers
# Completion evidence (issue 37 §4): a reply's own action buttons, in its row; the thinking
# shimmer; and the reasoning-label lines that are not an answer (the shared words).
ACTION_BAR_SELECTOR = ", ".join(
    f'button[aria-label="{name}"]' for name in ("Copy", "Like", "Dislike", "Regenerate")
)
STREAMING_INDICATOR_SELECTOR = '[class*="shimmer"], [aria-busy="true"]'
REASONING_LABEL_PATTERNS = shared.REASONING_LABEL_PATTERNS

# Page-state signals (searched outside the messages) -----------------------------------------

LOGIN_CTA_NAMES = ("sign in", "log in", "continue with x", "continue with google", "create account")
CHALLENGE_PATTERNS = (
    re.compile(r"captcha", re.I),
    re.compile(r"cloudflare", re.I),
    re.compile(r"verify you are human", re.I),
    re.compile(r"unusual activity", re.I),
    re.compile(r"suspicious activity", re.I),
)
CHALLENGE_SETTLING_PATTERNS = (re.compile(r"verification successful", re.I),)
OUTAGE_PATTERNS = shared.OUTAGE_PATTERNS  # facts §5: the outage list is shared
RATE_LIMIT_PATTERNS = shared.RATE_LIMIT_PATTERNS
UPLOAD_ERROR_PATTERNS = (
    re.compile(r"upload failed", re.I),
    re.compile(r"failed upload", re.I),
    re.compile(r"could not upload", re.I),
)
GENERATION_FAILURE_PATTERNS = (
    re.compile(r"something went wrong while generating a response", re.I),
    *shared.GENERATION_FAILURE_PATTERNS,
)


# Obstacles: Grok's pages interrupt the same ways (its own words join the shared list).
DISMISS_LABELS = _spell("dismiss")
FORBIDDEN_LABELS = _spell("forbidden")


def obstacle_vocabulary() -> ObstacleVocabulary:
    """The obstacle layer's words for Grok: its policy and its query bar (the default target)."""
    return ObstacleVocabulary(
        policy=DismissVocabulary(dismiss=DISMISS_LABELS, forbidden=FORBIDDEN_LABELS),
        target_selector=COMPOSER_REGION_SELECTOR,
        target_has=EDITABLE_SELECTOR,
    )


def page_vocabulary() -> dict[str, Any]:
    """What in-page scripts need, passed to them as an argument (the scripts hold no labels)."""
    return {
        "composerLabel": COMPOSER_LABELS[0],
        "editableSelector": EDITABLE_SELECTOR,
        "composerRegionSelector": COMPOSER_REGION_SELECTOR,
        "attachLabel": ATTACH_LABEL,
        "submitLabel": SUBMIT_LABEL,
        "stopLabel": STOP_LABELS[0],
        "bubbleSelector": MESSAGE_BUBBLE_SELECTOR,
        "assistantRoleSelector": ASSISTANT_ROLE_SELECTOR,
        "rowFallbackClasses": list(ROW_FALLBACK_CLASSES),
        "messageRootSelector": MESSAGE_ROOT_SELECTOR,
        "userSelector": USER_MESSAGE_SELECTOR,
        "userEditSelector": USER_EDIT_SELECTOR,
        "messageIdPrefix": MESSAGE_ID_PREFIX,
        "chromeSelectors": list(CHROME_SELECTORS),
        "chromePatterns": list(CHROME_PATTERNS),
        "thinkingSelector": THINKING_SELECTOR,
        "thoughtForPrefix": THOUGHT_FOR_PREFIX,
        "executedCodePrefix": EXECUTED_CODE_PREFIX,
        "loginCtaNames": list(LOGIN_CTA_NAMES),
        "actionBarSelector": ACTION_BAR_SELECTOR,
        "indicatorSelector": STREAMING_INDICATOR_SELECTOR,
    }
