"""Every label, selector and text signal of the Gemini web UI that oraculum matches
(gemini-and-locale-facts.md §1, "facts" below).

A Gemini UI change is a change to this module only. Gemini's accessible names are localized
(facts §1.3-1.4), so structure (`rich-textarea`, `model-response`, `data-test-id`) is preferred
where the page has it; in-page scripts get what they need through ``page_vocabulary``.
"""

from __future__ import annotations

import re
from typing import Any

from oraculum.providers import shared_vocabulary as shared
from oraculum.providers.gemini.locales import CODES
from oraculum.providers.locales import alternatives, exact_any, load_locales
from oraculum.providers.obstacle_guard import ObstacleVocabulary
from oraculum.providers.obstacles import DismissVocabulary

# UI languages (facts §1.3-1.4: Gemini localizes its accessible names): the labels below come
# from the locale tables (`gemini/locales/`), every language's spellings matched; structure
# (`rich-textarea`, `.send-button`, the mode opener's data-test-id) is used first wherever the
# page has it, so words decide only what structure cannot.
LOCALES = load_locales("oraculum.providers.gemini.locales", CODES)
_spell = LOCALES.spellings

# Origins -----------------------------------------------------------------------------------

REAL_ORIGINS = ("https://gemini.google.com",)
SIGN_IN_HOSTS = ("accounts.google.com",)  # a redirect there is a signed-out session

# Composer (facts §1.3) ---------------------------------------------------------------------

EDITABLE_SELECTOR = 'rich-textarea [contenteditable="true"]'
COMPOSER_SELECTOR = "rich-textarea"
COMPOSER_REGION_SELECTOR = ".input-area, .input-area-container"
SEND_SELECTOR = "button.send-button:not(.stop)"
SEND_LABEL = _spell("send")[0]  # how messages name it (the button is found by its class)
STOP_LABELS = _spell("stop")
TOOLS_LABELS = _spell("tools")  # facts §1.5: one menu for uploads and tools since 2026-05
TOOLS_LABEL = TOOLS_LABELS[0]  # how messages name it
TOOLS_NAME = exact_any(TOOLS_LABELS)
FILE_INPUT_SELECTOR = 'input[type="file"]'
UPLOAD_ENTRY = re.compile(rf"^\s*(?:{alternatives(_spell('upload_entry'))})\s*$", re.I)
MENU_SELECTORS = ('[role="menu"]',)
RETRY_LABELS = _spell("retry")
RETRY_LABEL = RETRY_LABELS[0]
# Facts §1.6: one preview chip per file.
CHIP_SELECTOR = "uploader-file-preview, .file-preview-container"
PROGRESS_SELECTOR = '[role="progressbar"]'

# Mode picker (facts §1.4) ------------------------------------------------------------------

MODE_BUTTON_SELECTOR = '[data-test-id="bard-mode-menu-button"]'
MODE_MENU_SELECTOR = '[data-test-id="gem-mode-menu"], [role="menu"]'
MODE_ITEM_SELECTOR = "gem-menu-item, [role='menuitem'], [role='menuitemradio']"
MODE_ITEM_LABEL_SELECTOR = ".label"
# The opener's name says the current mode: "Open mode picker, currently Pro".
CURRENT_MODE = re.compile(rf"(?:{alternatives(_spell('current_mode'))})\s+(.+?)\s*$", re.I)


def mode_names(mode: str) -> tuple[str, ...]:
    """What the picker may call a registry mode id, in every known language ("Pro",
    "Rápido"); its English name first."""
    return _spell(f"mode_{mode}")


SIGN_IN_LABELS = _spell("sign_in")

# Turns (facts §1.7) ------------------------------------------------------------------------

REPLY_SELECTOR = "model-response"
USER_SELECTOR = "user-query"
TURN_CONTAINER_SELECTOR = ".conversation-container"
REPLY_BODY_SELECTOR = "message-content .markdown, message-content"
# Chrome removed from a reply before it is read: its actions, thoughts, code-block headers.
CHROME_SELECTORS = (
    "button",
    "message-actions",
    ".thoughts-container",
    "model-thoughts",
    ".code-block-decoration",
    ".response-footer",
    '[role="button"]',
)
CHROME_PATTERNS = shared.TURN_CHROME_PATTERNS
THINKING_SELECTOR = ".thoughts-header-button, [data-test-id='thoughts-header-button']"
# Completion evidence (facts §1.8): the footer marked complete, the copy action.
ACTION_BAR_SELECTOR = (
    ".response-footer.complete, message-actions [data-test-id='copy-button'], copy-button button"
)
STREAMING_INDICATOR_SELECTOR = '[aria-busy="true"], [role="progressbar"]'
# Facts §1.10: placeholder texts a Deep Think turn shows before its answer (regex sources,
# case-insensitive): a reply holding one is still pending, whatever else it shows.
PENDING_PATTERNS = (r"^generating your response", r"check back later", r"^i'm on it")
VISIBLE_ONLY = "visible=true"  # Playwright's filter: shown elements only

# Page-state signals (searched outside the turns) -------------------------------------------

# Facts §1.2: the account link is the signed-in marker.
ACCOUNT_SELECTOR = 'a[aria-label*="Google Account"], a[href*="SignOutOptions"]'
# Lower-cased whole names of a sign-in call to action outside the turns.
LOGIN_CTA_NAMES = tuple(
    dict.fromkeys(
        (
            *(label.lower() for label in SIGN_IN_LABELS),
            "sign in to continue",
            "sign in to upload files",
        )
    )
)
CHALLENGE_PATTERNS = (
    re.compile(r"captcha", re.I),
    re.compile(r"verify you are human", re.I),
    re.compile(r"unusual traffic", re.I),
    re.compile(r"just a moment", re.I),
)
CHALLENGE_SETTLING_PATTERNS = (re.compile(r"verification successful", re.I),)
OUTAGE_PATTERNS = shared.OUTAGE_PATTERNS
# Facts §1.9: no source records the quota wording beyond "reached your limit" / "try again
# later"; the shared rate-limit words join them.
RATE_LIMIT_PATTERNS = (
    re.compile(r"reached your limit", re.I),
    re.compile(r"usage limit", re.I),
    *shared.RATE_LIMIT_PATTERNS,
)
UPLOAD_ERROR_PATTERNS = (
    re.compile(r"upload failed", re.I),
    re.compile(r"couldn't be uploaded", re.I),
    re.compile(r"could not upload", re.I),
)
GENERATION_FAILURE_PATTERNS = shared.GENERATION_FAILURE_PATTERNS

# Obstacles (facts §3 Gemini): Google's consent ("Reject all"), the info card ("Dismiss") are
# the shared words. The first-upload dialog ("Creating content from images and files") offers
# only Cancel and Agree: neither is pressed (Agree accepts terms, Cancel drops the upload), so
# it stays a blocker the user clears once in `oraculum auth gemini --manual`.
DISMISS_LABELS = _spell("dismiss")
FORBIDDEN_LABELS = _spell("forbidden")


def obstacle_vocabulary() -> ObstacleVocabulary:
    """The obstacle layer's words for Gemini: its policy and its input area (the target)."""
    return ObstacleVocabulary(
        policy=DismissVocabulary(dismiss=DISMISS_LABELS, forbidden=FORBIDDEN_LABELS),
        target_selector=COMPOSER_REGION_SELECTOR,
        target_has=EDITABLE_SELECTOR,
    )


def page_vocabulary() -> dict[str, Any]:
    """What in-page scripts need, passed to them as an argument (the scripts hold no labels)."""
    return {
        "editableSelector": EDITABLE_SELECTOR,
        "composerSelector": COMPOSER_SELECTOR,
        "sendSelector": SEND_SELECTOR,
        "stopLabels": list(STOP_LABELS),
        "toolsLabels": list(TOOLS_LABELS),
        "replySelector": REPLY_SELECTOR,
        "userSelector": USER_SELECTOR,
        "containerSelector": TURN_CONTAINER_SELECTOR,
        "bodySelector": REPLY_BODY_SELECTOR,
        "chromeSelectors": list(CHROME_SELECTORS),
        "chromePatterns": list(CHROME_PATTERNS),
        "thinkingSelector": THINKING_SELECTOR,
        "actionBarSelector": ACTION_BAR_SELECTOR,
        "indicatorSelector": STREAMING_INDICATOR_SELECTOR,
        "pendingPatterns": list(PENDING_PATTERNS),
        "accountSelector": ACCOUNT_SELECTOR,
        "loginCtaNames": list(LOGIN_CTA_NAMES),
    }
