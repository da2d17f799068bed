"""The grok.com look-alike (facts §5): what its page, sign-in and API differ in from ChatGPT's.

The page itself is static/grok.html + grok.js + grok.css; conversations, uploads, scenarios,
answers and the stream are the shared ones. Facts §5 gives the labels ("Ask Grok anything",
"Attach", "Model select", a menu item starting "Heavy", "Submit", "Stop model response"), the
`/c/<id>` and `/chat/<id>` paths, the `.message-bubble` structure with its action buttons and
`.thinking-container`, and the `sso` cookie of grok.com / x.ai / x.com. Names the facts do not
give (the API paths, the other models, the upload and error texts) are the simulator's own.
"""

from __future__ import annotations

from oraculum.simulator.site import Site, conversations_api
from oraculum.simulator.state import Selection

GROK_GENERATION_ERROR_TEXT = "Something went wrong while generating a response. Please try again."

GROK = Site(
    provider="grok",
    title="Grok",
    host="grok.com",
    # grok.com signs in through x.ai's accounts service; `sso` carries the session.
    session_cookie="sso",
    sign_in_path="/sign-in",
    sign_in_title="Sign in - xAI",
    sign_in_heading="Sign in to Grok",
    sign_in_alternatives=("Continue with X", "Continue with Google"),
    page_template="grok.html",
    conversation_routes=("/c/{cid}", "/chat/{cid}"),
    api=conversations_api(
        "/rest/app-chat",
        send="conversations/new",
        followup="responses",
        upload="upload-file",
        model="settings/model",
    ),
    default_selection=Selection(family="grok", effort="auto", auto_switch=False),
    generation_error_text=GROK_GENERATION_ERROR_TEXT,
)
