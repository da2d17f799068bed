"""The Deep Research widget's own origin: a second listening socket of the same simulator.

ChatGPT shows a research report in a sandboxed App iframe on another site
(`…web-sandbox.oaiusercontent.com`, facts §2.7), whose same-origin child frame holds the report.
Here that site is a second port on another loopback host name (127.0.0.1 ↔ localhost), so the
frame is cross-origin and cross-site to the page, and Chromium runs it out of process as it does
the real one. It serves two pages and static files; the report itself comes from the host page
by postMessage, never from a request of the widget's own (the Apps SDK model).
"""

from __future__ import annotations

import json
from pathlib import Path

from aiohttp import web

from oraculum.simulator.state import SimState

__all__ = ["create_widget_app", "widget_host"]

STATIC_DIR = Path(__file__).parent / "static"
_STATE = web.AppKey("widget_state", SimState)


def widget_host(host: str) -> str:
    """The host name the widget's URL uses: another site than the page's own host."""
    return "localhost" if host == "127.0.0.1" else "127.0.0.1"


def _page(name: str, state: SimState) -> web.Response:
    html = (STATIC_DIR / name).read_text(encoding="utf-8")
    # The only origin the widget trusts and talks to.
    html = html.replace("{{HOST_ORIGIN}}", json.dumps(state.host_origin))
    return web.Response(text=html, content_type="text/html", headers={"cache-control": "no-store"})


async def frame(request: web.Request) -> web.Response:
    return _page("research_frame.html", request.app[_STATE])


async def report(request: web.Request) -> web.Response:
    return _page("research_report.html", request.app[_STATE])


def create_widget_app(state: SimState) -> web.Application:
    app = web.Application()
    app[_STATE] = state
    app.router.add_get("/deep-research/frame", frame)
    app.router.add_get("/deep-research/report", report)
    app.router.add_static("/static", STATIC_DIR)
    return app
