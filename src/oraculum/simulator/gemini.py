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

from oraculum.simulator.site import Site
from oraculum.simulator.state import Selection

_API = "/_/BardChatUi/sim"
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
    api={
        "send": f"{_API}/conversations",
        "followup": f"{_API}/conversations/{{cid}}/turns",
        "conversation": f"{_API}/conversations/{{cid}}",
        "stream": f"{_API}/conversations/{{cid}}/stream/{{mid}}",
        "stop": f"{_API}/conversations/{{cid}}/stop/{{mid}}",
        "retry": f"{_API}/conversations/{{cid}}/retry/{{mid}}",
        "upload": f"{_API}/upload",
        "model": f"{_API}/mode",
        "page_event": f"{_API}/page-event",
    },
    default_selection=Selection(family="gemini", effort="fast", auto_switch=False),
    rate_limit_text=GEMINI_USAGE_LIMIT_TEXT,
)
