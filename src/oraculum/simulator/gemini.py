"""The gemini.google.com look-alike (gemini-and-locale-facts.md §1): what its page, sign-in and
API differ in from the other sites.

The page itself is static/gemini.html + gemini.js + gemini.css; conversations, uploads,
scenarios, answers and the stream are the shared ones. The facts give the labels ("Enter a
prompt for Gemini", "Upload & tools", "Upload files. Documents, data, code files", "Send
message", "Stop response", "Open mode picker, currently <Mode>"), the `/app/<id>` paths, the
`<user-query>` / `<model-response>` turn structure with its `.response-footer.complete`, and the
copy button. Names the facts do not give (the API paths, the sign-in form, the usage-limit
wording, which the facts record only as "reached your limit … try again later") are the
simulator's own.
"""

from __future__ import annotations

from oraculum.simulator.site import Site, conversations_api
from oraculum.simulator.state import Selection

GEMINI_USAGE_LIMIT_TEXT = (
    "You've reached your limit for this model for now. Try again later, or switch to Fast."
)

GEMINI = Site(
    provider="gemini",
    title="Gemini",
    host="gemini.google.com",
    # Facts §1.2: `__Secure-1PSID` carries the session (its prefix wants `Secure`, which
    # Chromium grants a loopback origin over plain HTTP).
    session_cookie="__Secure-1PSID",
    sign_in_path="/ServiceLogin",
    sign_in_title="Sign in - Google Accounts",
    sign_in_heading="Sign in to Gemini",
    sign_in_alternatives=("Use another account",),
    page_template="gemini.html",
    conversation_routes=("/app/{cid}",),
    home_routes=("/app",),
    api=conversations_api(
        "/_/BardChatUi/sim", send="conversations", followup="turns", upload="upload", model="mode"
    ),
    default_selection=Selection(family="gemini", effort="fast", auto_switch=False),
    rate_limit_text=GEMINI_USAGE_LIMIT_TEXT,
)
