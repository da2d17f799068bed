"""Every label, role, attribute and text signal of the ChatGPT web UI that oraculum matches.

Both shells (classic and redesigned) are listed; a UI change is a change to this module only.
Labels are matched exactly unless a name says "prefix" or "pattern".
"""

from __future__ import annotations

import re
from typing import Any

from oraculum.capture.page import TurnVocabulary
from oraculum.providers import shared_vocabulary as shared
from oraculum.providers.chatgpt.locales import CODES
from oraculum.providers.locales import alternatives, load_locales
from oraculum.providers.obstacle_guard import ObstacleVocabulary
from oraculum.providers.obstacles import DismissVocabulary

# UI languages: every label below is derived from the locale tables (`chatgpt/locales/`), each
# the union of every language's spellings, the page's own language first where it is known.
LOCALES = load_locales("oraculum.providers.chatgpt.locales", CODES)
_spell = LOCALES.spellings


def _exact(concept: str) -> re.Pattern[str]:
    """An entry's whole text naming ``concept`` in any language."""
    return re.compile(rf"^\s*(?:{alternatives(_spell(concept))})\s*$", re.I)


# Origins -----------------------------------------------------------------------------------

REAL_ORIGINS = ("https://chatgpt.com", "https://chat.openai.com", "https://auth.openai.com")
AUTH_PATH_PREFIXES = ("/auth", "/login", "/signin", "/log-in")
ME_ENDPOINT = "/backend-api/me"

# Composer ----------------------------------------------------------------------------------

COMPOSER_LABELS = _spell("composer")
WORK_COMPOSER_LABEL = "Work with ChatGPT"  # a different product; never counts as ready
COMPOSER_EDITOR_SELECTOR = "#prompt-textarea"
COMPOSER_REGION_SELECTOR = "form"  # the composer form: the one holding the editor
ADD_FILES_LABELS = _spell("add_files")
ADD_FILES_LABEL = ADD_FILES_LABELS[0]  # how messages name it
FILE_INPUT_SELECTOR = 'input[type="file"]'
# The attach menu's upload entry, for pages that create their file input only when it is
# chosen (the title and the description are separate text nodes; either one is the entry).
UPLOAD_ENTRY = _exact("upload_entry")
# Where an open menu's entries are read (to say what it offered when no upload entry was there).
MENU_SELECTORS = ('[role="menu"]', "[data-radix-menu-content]", '[data-testid$="menu"]')
# The attachment chip in the composer: the element named by the file, inside one of these
# (else its parent); it is busy while it holds a progress or busy marker or says so.
UPLOAD_CHIP_CONTAINER_SELECTORS = ('[data-testid*="file"]', '[role="group"]', "li")
UPLOAD_CHIP_BUSY_SELECTOR = '[role="progressbar"], [aria-busy="true"], [data-state="uploading"]'
UPLOAD_CHIP_ERROR_SELECTOR = '[data-state="error"]'
UPLOAD_CHIP_BUSY_PATTERNS = (
    re.compile(r"\buploading\b", re.I),
    re.compile(r"\bprocessing\b", re.I),
    re.compile(r"\bloading\b", re.I),
)
SEND_LABELS = _spell("send")
STOP_LABELS = _spell("stop")
STOP_SELECTOR = '[data-testid="stop-button"]'
RETRY_LABELS = _spell("retry")
RETRY_LABEL = RETRY_LABELS[0]  # how messages name it
CLOSE_LABELS = _spell("close")

# Obstacles: what covers the page, and the only controls that may clear it ---------------------

# The words every chat site shares (`providers.shared_vocabulary`, the English table's), and
# their translations: dismissed, and never pressed.
DISMISS_LABELS = _spell("dismiss")
FORBIDDEN_LABELS = _spell("forbidden")

# Turns -------------------------------------------------------------------------------------

ASSISTANT_HEADING = "ChatGPT said:"
ASSISTANT_ROLE_SELECTOR = '[data-message-author-role="assistant"]'
USER_ROLE_SELECTOR = '[data-message-author-role="user"]'
TURN_CONTAINER_SELECTORS = (
    "[data-message-author-role]",
    "[data-turn-key]",
    '[data-testid^="conversation-turn"]',
    "article",
)
MESSAGE_ID_ATTRIBUTES = ("data-message-id", "data-chatgpt-selection-message-id")
DISCLAIMER = "ChatGPT can make mistakes. Check important info."

# Inside an assistant turn: what is not the answer (issue 37 §5-6). Regular expressions match
# an element's whole text. Chrome is found by structure first (controls, these elements);
# words only name short notices that are plain text.
TURN_CHROME_SELECTORS = (
    'button, [role="button"]',  # every control (one selector list: a role is no label)
    '[data-testid$="turn-action-button"]',
)
TURN_CHROME_PATTERNS = shared.TURN_CHROME_PATTERNS
# Two candidate answers side by side, the page asking which one is preferred.
COMPARISON_QUESTIONS = (r"Which response do you prefer\?.*",)
COMPARISON_CHOICES = ("I prefer this response", "I prefer this")
COMPARISON_CANDIDATE_LABELS = (r"Response \d+",)
# Completion evidence (issue 37 §4) ---------------------------------------------------------

# A finished turn's own action bar. A fresh turn says "Copy", one re-rendered from persistence
# "Copy response": either counts (requiring one of them hung every job once, facts §3.5).
ACTION_BAR_SELECTOR = ", ".join(
    (
        '[data-testid="copy-turn-action-button"]',
        '[data-testid="good-response-turn-action-button"]',
        '[data-testid="bad-response-turn-action-button"]',
        *(f'button[aria-label="{label}"]' for label in (*_spell("copy"), *_spell("feedback"))),
    )
)
# Where a reply's action bar and indicators are: the turn (or exchange) holding its message.
TURN_SCOPE_SELECTORS = ("[data-turn-key]", '[data-testid^="conversation-turn"]', "article")
# Still reasoning or streaming: the "Thinking" shimmer, a streaming message, a busy region.
STREAMING_INDICATOR_SELECTOR = '[class*="shimmer"], .result-streaming, [aria-busy="true"]'
# Lines that only label reasoning ("Thought for 25s"): not an answer yet.
REASONING_LABEL_PATTERNS = shared.REASONING_LABEL_PATTERNS

# Page-state signals (searched in banners, dialogs and the composer region; never in turns) --

CHALLENGE_PATTERNS = (
    re.compile(r"just a moment", re.I),
    re.compile(r"verify you are human", re.I),
    re.compile(r"cloudflare", re.I),
    re.compile(r"captcha|turnstile|hcaptcha", re.I),
    re.compile(r"unusual activity detected", re.I),
    re.compile(r"we detect suspicious activity", re.I),
)
CHALLENGE_SETTLING_PATTERNS = (
    re.compile(r"verification successful", re.I),
    re.compile(r"waiting for chatgpt\.com to respond", re.I),
)
OUTAGE_PATTERNS = shared.OUTAGE_PATTERNS
# Seen while signing a seed profile in: the server refused the request headers, because the
# imported cookie set is too large or stale. It means "sign in again", not an outage.
COOKIE_REJECTED_PATTERNS = (
    re.compile(r"http error 431", re.I),
    re.compile(r"request header or cookie too large", re.I),
)
RATE_LIMIT_PATTERNS = shared.RATE_LIMIT_PATTERNS
LOGIN_CTA_PREFIXES = ("log in", "login", "sign in", "signin", "continue with", "sign up")
UPLOAD_ERROR_PATTERNS = (
    re.compile(r"failed upload", re.I),
    re.compile(r"upload failed", re.I),
    re.compile(r"files\.oaiusercontent\.com", re.I),
    re.compile(r"please ensure your network settings allow access to this site", re.I),
    re.compile(r"could not upload", re.I),
)
GENERATION_FAILURE_PATTERNS = shared.GENERATION_FAILURE_PATTERNS

# Deep Research (a composer tool, not a model) ----------------------------------------------

# The "Add files and more" menu's entries are role-less clickables whose text joins title and
# description ("Deep researchGet a detailed report"); the entry is the one starting with this.
DEEP_RESEARCH_PILLS = _spell("deep_research")
DEEP_RESEARCH_ENTRY = re.compile(rf"^\s*(?:{alternatives(DEEP_RESEARCH_PILLS)})", re.I)
TOOL_PILL_SELECTOR = "[data-inline-selection-pill]"
DEEP_RESEARCH_FRAME_TITLE = "internal://deep-research"
DEEP_RESEARCH_FRAME_SELECTOR = f'iframe[title="{DEEP_RESEARCH_FRAME_TITLE}"]'
# Where the menu entry is looked for: any visible element (the entries have no role).
TOOL_ENTRY_CANDIDATES = "body *:visible"
# The model writes this (its topic varies); the widget alone also decides that research began.
DEEP_RESEARCH_STARTED_PREFIX = "Deep Research has started working on your"

# Model pickers -----------------------------------------------------------------------------

FAMILY_LABELS = {"instant": "Instant", "thinking": "Thinking", "pro": "Pro"}
# Every model, effort and tier name: the driver reasons in the English ones (the concepts), and
# a localized name on the page is read as its concept first (`labels.base_name`).
MODEL_TERMS = LOCALES.terms(
    ("Instant", "Thinking", "Pro", "Light", "Standard", "Extended", "Heavy", "Medium", "High",
     "Extra High", "Pro Standard", "Pro Extended")
)  # fmt: skip
# A family or version prefix on a model's name ("6 Pro", "GPT-5.6 Thinking", "ChatGPT 5 Pro"):
# such a name still names its base ("Pro"), but only when exactly one entry does.
MODEL_FAMILY_PREFIX = r"(?:(?:(?:Chat)?GPT[-\s]?)?\d+(?:\.\d+)*[a-z]?|(?:Chat)?GPT)\s+"
EFFORT_LABELS = {
    "light": "Light",
    "standard": "Standard",
    "extended": "Extended",
    "heavy": "Heavy",
}
MODEL_OPENER_LABELS = _spell("model_opener")
CONFIGURE_MENUITEMS = _spell("configure")
THINKING_EFFORT_COMBOBOXES = _spell("thinking_effort")
PRO_EFFORT_COMBOBOXES = _spell("pro_thinking_effort")
AUTO_SWITCH_PREFIXES = _spell("auto_switch")
CHIP_REMOVE_SUFFIX = ", click to remove"
CHECK_MARKS = "✓✔"  # a selected row may carry a check mark in its accessible name
INTELLIGENCE_HEADINGS = _spell("intelligence")
SHOW_ADVANCED = _spell("show_advanced")
PRO_EFFORT_OPTIONS = _spell("pro_effort_options")
POWER_OPENER_OPEN = THINKING_EFFORT_COMBOBOXES  # the pill's names while its menu is open
# The picker's opener while its menu is open, whatever its name has become meanwhile.
EXPANDED_POPUP_OPENER_SELECTOR = 'button[aria-haspopup][aria-expanded="true"]'
POWER_MENUS = THINKING_EFFORT_COMBOBOXES
POWER_ITEMS = _spell("power")
POWER_STOPS = ("Instant", "Medium", "High", "Extra High", "Pro")
# "Extra High, 4 of 5." in any language: the label, then the two numbers (whatever word joins them).
POWER_DESCRIPTION = re.compile(
    r"^\s*(?P<label>[^,，、]+)[,，、]\s*(?P<index>\d+)\D{1,12}?(?P<count>\d+)(?!\d)"
)
# Compact tier rows ("Medium 5–30s") and what they mean.
COMPACT_TIERS = {
    "Instant": ("instant", None),
    "Medium": ("thinking", "standard"),
    "High": ("thinking", "extended"),
    "Extra High": ("thinking", "heavy"),
    "Pro": ("pro", None),
    "Pro Standard": ("pro", "standard"),
    "Pro Extended": ("pro", "extended"),
}

# Plans (issue 38 §7, inferred: docs/simulator.md): an entry the account's plan lacks stays in
# the open picker with an upgrade control beside its name, and choosing it does not take.
UPGRADE_LABEL = re.compile(rf"^\s*(?:{alternatives(_spell('upgrade'))})", re.I)
PICKER_SCOPE_SELECTOR = '[role="menu"], [role="dialog"]'
LOCKED_ROW_SELECTOR = '[role="menuitem"], [role="menuitemradio"], [role="radio"], [role="option"]'
# The plan a locked stop needs (anything else locked: "a higher ChatGPT plan").
PLAN_FOR_STOP = {"High": "ChatGPT Plus", "Extra High": "ChatGPT Plus", "Pro": "ChatGPT Pro"}
HIGHER_PLAN = "a higher ChatGPT plan"


# The names a closed pill or a family row shows, in every language.
TIER_NAMES = tuple(LOCALES.terms(COMPACT_TIERS))
FAMILY_NAMES = tuple(LOCALES.terms(FAMILY_LABELS.values()))


def power_stop_for(family: str, effort: str | None) -> str:
    """The Power slider stop that serves a preset."""
    if family == "instant":
        return "Instant"
    if family == "pro":
        return "Pro"
    return {"light": "Medium", "standard": "Medium", "extended": "High", "heavy": "Extra High"}[
        effort or "standard"
    ]


def compact_tier_for(family: str, effort: str | None) -> str:
    """The compact "Intelligence" row that serves a preset."""
    return power_stop_for(family, effort)


def turn_vocabulary() -> TurnVocabulary:
    """What the capture needs to keep chrome and comparisons apart from the answer."""
    return TurnVocabulary(
        chrome_selectors=TURN_CHROME_SELECTORS,
        chrome_patterns=TURN_CHROME_PATTERNS,
        comparison_questions=COMPARISON_QUESTIONS,
        comparison_choices=COMPARISON_CHOICES,
        candidate_labels=COMPARISON_CANDIDATE_LABELS,
    )


def obstacle_vocabulary() -> ObstacleVocabulary:
    """The obstacle layer's words for ChatGPT: its policy and its composer (the default target)."""
    return ObstacleVocabulary(
        policy=DismissVocabulary(dismiss=DISMISS_LABELS, forbidden=FORBIDDEN_LABELS),
        target_selector=COMPOSER_REGION_SELECTOR,
        target_has=COMPOSER_EDITOR_SELECTOR,
    )


def page_vocabulary() -> dict[str, Any]:
    """The subset of this vocabulary that in-page scripts need, passed to them as an argument
    (the scripts themselves stay free of labels)."""
    return {
        "composerSelector": COMPOSER_EDITOR_SELECTOR,
        "stopSelector": STOP_SELECTOR,
        "turnSelectors": list(TURN_CONTAINER_SELECTORS),
        "assistantSelector": ASSISTANT_ROLE_SELECTOR,
        "userSelector": USER_ROLE_SELECTOR,
        "assistantHeading": ASSISTANT_HEADING,
        "messageIdAttributes": list(MESSAGE_ID_ATTRIBUTES),
        "disclaimer": DISCLAIMER,
        "loginCtaPrefixes": list(LOGIN_CTA_PREFIXES),
        "authPathPrefixes": list(AUTH_PATH_PREFIXES),
        "meEndpoint": ME_ENDPOINT,
        "sendLabels": list(SEND_LABELS),
        "stopLabels": list(STOP_LABELS),
        "composerRegionSelector": COMPOSER_REGION_SELECTOR,
        "chipContainerSelectors": list(UPLOAD_CHIP_CONTAINER_SELECTORS),
        "chipBusySelector": UPLOAD_CHIP_BUSY_SELECTOR,
        "chipErrorSelector": UPLOAD_CHIP_ERROR_SELECTOR,
        "actionBarSelector": ACTION_BAR_SELECTOR,
        "turnScopeSelectors": list(TURN_SCOPE_SELECTORS),
        "indicatorSelector": STREAMING_INDICATOR_SELECTOR,
    }
