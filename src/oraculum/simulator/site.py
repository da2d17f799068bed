"""What differs between the sites the simulator imitates, as plain data.

Everything else — conversations, uploads, scenarios, answers, sessions, the stream — is shared;
a site only names its page, its sign-in cookie and form, its API paths and a few texts.
`site_for("grok")` is defined in `oraculum.simulator.grok`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from oraculum.simulator.scenarios import check_provider
from oraculum.simulator.state import GENERATION_ERROR_TEXT, Selection


@dataclass(frozen=True)
class Site:
    provider: str
    title: str  # the page title and the brand in its header
    host: str  # the real site's host, named by the challenge page
    session_cookie: str
    sign_in_path: str
    sign_in_title: str
    sign_in_heading: str
    sign_in_alternatives: tuple[str, ...]  # disabled "Continue with …" buttons
    page_template: str  # under static/
    conversation_routes: tuple[str, ...]  # aiohttp paths with {cid}
    # API paths by purpose: send, followup (optional, with {cid}), conversation, stream, stop,
    # retry, upload, model, page_event; {cid} and {mid} are placeholders.
    api: dict[str, str] = field(default_factory=dict)
    default_selection: Selection = field(default_factory=Selection)
    generation_error_text: str = GENERATION_ERROR_TEXT
    has_identity_endpoint: bool = False  # ChatGPT's GET /backend-api/me
    home_routes: tuple[str, ...] = ()  # new-chat pages besides "/" (Gemini's /app)
    rate_limit_text: str | None = None  # the refused send's text (None: the shared one)

    def new_chat_path(self) -> str:
        return self.home_routes[0] if self.home_routes else "/"

    def conversation_path(self, conversation_id: str) -> str:
        return self.conversation_routes[0].replace("{cid}", conversation_id)


def conversations_api(
    prefix: str, *, send: str, followup: str, upload: str, model: str
) -> dict[str, str]:
    """A site's API under ``prefix`` whose conversations live at ``conversations/{cid}`` (Grok's
    and Gemini's look-alikes): their stream, stop and retry paths are the same there; ``send``,
    ``followup`` (under the conversation), ``upload`` and ``model`` are the site's own words."""
    conversation = f"{prefix}/conversations/{{cid}}"
    return {
        "send": f"{prefix}/{send}",
        "followup": f"{conversation}/{followup}",
        "conversation": conversation,
        "stream": f"{conversation}/stream/{{mid}}",
        "stop": f"{conversation}/stop/{{mid}}",
        "retry": f"{conversation}/retry/{{mid}}",
        "upload": f"{prefix}/{upload}",
        "model": f"{prefix}/{model}",
        "page_event": f"{prefix}/page-event",
    }


CHATGPT = Site(
    provider="chatgpt",
    title="ChatGPT",
    host="chatgpt.com",
    session_cookie="oraculum-sim-session",
    sign_in_path="/auth/login",
    sign_in_title="Log in - OpenAI",
    sign_in_heading="Welcome back",
    sign_in_alternatives=("Continue with Google",),
    page_template="index.html",
    conversation_routes=("/c/{cid}",),
    api={
        "send": "/backend-api/conversation",
        "conversation": "/backend-api/conversation/{cid}",
        "stream": "/backend-api/conversation/{cid}/stream/{mid}",
        "stop": "/backend-api/conversation/{cid}/stop/{mid}",
        "retry": "/backend-api/conversation/{cid}/retry/{mid}",
        "upload": "/backend-api/files",
        "model": "/backend-api/settings/model",
        "page_event": "/backend-api/page-event",
    },
    has_identity_endpoint=True,
)


def site_for(provider: str) -> Site:
    if check_provider(provider) == "grok":
        from oraculum.simulator.grok import GROK

        return GROK
    if provider == "gemini":
        from oraculum.simulator.gemini import GEMINI

        return GEMINI
    return CHATGPT
