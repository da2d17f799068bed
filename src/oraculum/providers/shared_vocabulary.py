"""Words every provider's web UI shares, so each provider's vocabulary names them once.

The chat sites copy one another: the same dismissal and upgrade buttons, the same reasoning
labels ("Thought for 25s"), the same outage and rate-limit wording. A provider's vocabulary
module takes these lists (adding its own words) instead of another provider's module, so no
provider is the base of another. A word one site alone shows belongs in that site's module.
"""

from __future__ import annotations

import re

# Obstacles ---------------------------------------------------------------------------------

# Pressed (after Escape) to get rid of a dialog, banner or toast and nothing else; earlier wins.
DISMISS_LABELS = (
    "Not now",
    "Maybe later",
    "No thanks",
    "No, thanks",
    "Dismiss",
    "Close dialog",
    "Close",
    "Got it",
    "Skip",
    "Reject non-essential",
    "Necessary cookies only",
    "Only necessary",
    "Reject all",
    "Decline",
    "×",
)
# Never pressed, whatever else the name says: upgrading, buying, enabling a feature, changing
# the model, accepting all cookies.
FORBIDDEN_LABELS = (
    "Try it",
    "Try now",
    "Upgrade",
    "Buy",
    "Purchase",
    "Subscribe",
    "Start trial",
    "Free trial",
    "Accept",
    "Accept all",
    "Allow all",
    "Agree",
    "Get started",
    "Enable",
    "Turn on",
    "Switch",
    "Use",
    "Continue",
    "Confirm",
    "Yes",
)

# Inside a reply ----------------------------------------------------------------------------

# Notices inside a reply known only by their whole text (regular expressions, whole text).
TURN_CHROME_PATTERNS = (
    r"(?:Thought|Reasoned|Worked) for(?:\s+\d+(?:\.\d+)?\s*[hms])+",
    r"Stopped thinking",
    r"Memory (?:updated|saved|full)",
    r"Manage memories",
    r"Is this conversation helpful so far\?",
    r"Do you like this personality\?",
)
# A line that only says the model reasons or reasoned ("Thought for 25s", "Thinking…",
# "Reasoned for 2m", "Worked for 1m 7s"): a reply made only of these is not an answer yet.
REASONING_LABEL_PATTERNS = (
    re.compile(
        r"^(?:Thought|Worked|Reasoned|Thinking|Reasoning)\s+for\s+[\w .,]{1,40}$", re.IGNORECASE
    ),
    re.compile(r"^(?:Thinking|Reasoning)\s*(?:…|\.\.\.)?$", re.IGNORECASE),
    re.compile(r"^Stopped (?:thinking|reasoning)$", re.IGNORECASE),
)

# Page-state signals (searched in banners, dialogs and the composer region; never in turns) --

OUTAGE_PATTERNS = (
    re.compile(r"too many requests", re.I),
    re.compile(r"rate limit", re.I),
    re.compile(r"try again later", re.I),
    re.compile(r"something went wrong", re.I),
    re.compile(r"a network error occurred", re.I),
    re.compile(r"an error occurred while connecting to the websocket", re.I),
)
RATE_LIMIT_PATTERNS = (re.compile(r"too many requests", re.I), re.compile(r"rate limit", re.I))
GENERATION_FAILURE_PATTERNS = (
    re.compile(r"message delivery timed out", re.I),
    re.compile(r"a network error occurred", re.I),
    re.compile(r"an error occurred while connecting to the websocket", re.I),
    re.compile(r"there was an error generating a response", re.I),
    re.compile(r"something went wrong while generating the response", re.I),
)
