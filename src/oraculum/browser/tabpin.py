"""A loopback CDP proxy that shows a Playwright connection exactly one tab of a shared browser.

Playwright's ``connect_over_cdp`` attaches to every tab of the browser, sets the download
behaviour of the default context and may bring pages to front. In a browser the user also uses
(the relay) or that other jobs share (the managed keeper) none of that is acceptable, so a job's
Playwright talks to this proxy instead of to Chrome: the proxy forwards only what concerns the
job's own tab (its target id, the sessions attached to it and their children), answers the
browser-wide auto-attach by attaching to that one tab, swallows download-behaviour changes and
refuses activation, browser close and any command aimed at another target.

Decisions (what to forward, what to refuse) are pure functions; the proxy only moves frames.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

__all__ = ["PinState", "browser_command_verdict", "pinned_endpoint", "session_command_verdict"]

# Browser-level commands a pinned Playwright may send, beyond the ones handled specially below.
_BROWSER_ALLOWED = frozenset(
    {
        "Browser.getVersion",
        "Target.setDiscoverTargets",
        "Target.getBrowserContexts",
        "Target.getTargets",
        "Target.getTargetInfo",
        "Target.attachToTarget",
        "Target.detachFromTarget",
        "Target.closeTarget",
        "Browser.getWindowForTarget",
    }
)
# Never sent on to the browser, whoever's session: they move focus or change the user's browser.
_ALWAYS_REFUSED = frozenset(
    {
        "Page.bringToFront",
        "Target.activateTarget",
        "Browser.close",
        "Browser.crash",
        "Browser.crashGpuProcess",
        "Browser.setDownloadBehavior",
        "Page.setDownloadBehavior",
        "Browser.setWindowBounds",
        "Browser.grantPermissions",
        "Browser.setPermission",
        "Browser.resetPermissions",
        "Target.createTarget",
        "Target.createBrowserContext",
        "Target.disposeBrowserContext",
    }
)
# Quietly answered success: Playwright sets these up on connect and would fail without a reply,
# but forwarding them would change the user's browser (downloads) or attach to every tab.
_ANSWERED_LOCALLY = frozenset({"Browser.setDownloadBehavior", "Page.setDownloadBehavior"})
_TARGET_ID_COMMANDS = frozenset(
    {"Target.attachToTarget", "Target.closeTarget", "Target.getTargetInfo"}
)
_PROXY_ID_BASE = 2_000_000_000  # the proxy's own request ids: far above Playwright's, within int32


@dataclass
class PinState:
    """What the proxy knows: the owned target and the CDP sessions that belong to it."""

    target_id: str
    sessions: set[str] = field(default_factory=set)
    refused: list[str] = field(default_factory=list)
    answered_locally: list[str] = field(default_factory=list)  # never reached the browser

    def owns_session(self, session_id: str | None) -> bool:
        return session_id is not None and session_id in self.sessions


def browser_command_verdict(state: PinState, method: str, params: dict[str, Any]) -> str:
    """``forward``, ``local`` (answer {} here), ``auto_attach`` or ``refuse`` for a
    browser-level command."""
    if method in _ANSWERED_LOCALLY:
        return "local"
    if method == "Target.setAutoAttach":
        return "auto_attach"
    if method in _ALWAYS_REFUSED or method not in _BROWSER_ALLOWED:
        return "refuse"
    if method in _TARGET_ID_COMMANDS and "targetId" in params:
        return "forward" if params["targetId"] == state.target_id else "refuse"
    if method == "Target.detachFromTarget":
        return "forward" if state.owns_session(params.get("sessionId")) else "refuse"
    if method == "Browser.getWindowForTarget":
        return "forward" if params.get("targetId") == state.target_id else "refuse"
    return "forward"


def session_command_verdict(state: PinState, session_id: str, method: str) -> str:
    """``forward``, ``local`` or ``refuse`` for a command on a CDP session."""
    if method in _ANSWERED_LOCALLY:
        return "local"
    if not state.owns_session(session_id) or method in _ALWAYS_REFUSED:
        return "refuse"
    if method.startswith("Browser."):
        return "refuse"
    return "forward"


def event_visible(state: PinState, message: dict[str, Any]) -> bool:
    """Whether a browser event may reach the pinned client; learns the owned sessions."""
    session_id = message.get("sessionId")
    params = message.get("params") or {}
    method = message.get("method", "")
    if method == "Target.attachedToTarget":
        info = params.get("targetInfo") or {}
        mine = info.get("targetId") == state.target_id or state.owns_session(session_id)
        if mine:
            state.sessions.add(params.get("sessionId", ""))
        return mine
    if method == "Target.detachedFromTarget":
        mine = state.owns_session(params.get("sessionId"))
        state.sessions.discard(params.get("sessionId", ""))
        return mine or state.owns_session(session_id)
    if session_id is not None:
        return state.owns_session(session_id)
    info = params.get("targetInfo") or {}
    target = info.get("targetId") or params.get("targetId")
    return target == state.target_id


def filter_result(state: PinState, method: str, result: dict[str, Any]) -> dict[str, Any]:
    """A forwarded answer with every other tab removed (``Target.getTargets``)."""
    if method == "Target.getTargets":
        infos = result.get("targetInfos") or []
        return {**result, "targetInfos": [i for i in infos if i.get("targetId") == state.target_id]}
    return result


class _Pump:
    """One client connection: Playwright on one side, the browser's socket on the other."""

    def __init__(
        self,
        state: PinState,
        client: web.WebSocketResponse,
        upstream: aiohttp.ClientWebSocketResponse,
    ) -> None:
        self.state = state
        self.client = client
        self.upstream = upstream
        self.pending: dict[int, str] = {}  # request id -> method, for result filtering
        self.next_id = _PROXY_ID_BASE

    async def from_client(self, message: dict[str, Any]) -> None:
        method = message.get("method", "")
        session_id = message.get("sessionId")
        params = message.get("params") or {}
        if session_id is None:
            verdict = browser_command_verdict(self.state, method, params)
        else:
            verdict = session_command_verdict(self.state, session_id, method)
        if verdict == "forward":
            self.pending[message["id"]] = method
            await self.upstream.send_str(json.dumps(message))
        elif verdict == "local":
            self.state.answered_locally.append(method)
            await self.reply(message, {})
        elif verdict == "auto_attach":
            await self.reply(message, {})
            await self.own_call(
                "Target.attachToTarget", {"targetId": self.state.target_id, "flatten": True}
            )
        else:
            self.state.refused.append(method)
            await self.reply_error(message, f"{method} is refused by oraculum's tab pin")

    async def from_upstream(self, message: dict[str, Any]) -> None:
        if "id" in message:
            if message["id"] >= _PROXY_ID_BASE:
                return  # the proxy's own call; its event carries what the client needs
            method = self.pending.pop(message["id"], "")
            if "result" in message:
                message = {
                    **message,
                    "result": filter_result(self.state, method, message["result"]),
                }
            await self.client.send_str(json.dumps(message))
        elif event_visible(self.state, message):
            await self.client.send_str(json.dumps(message))

    async def own_call(self, method: str, params: dict[str, Any]) -> None:
        self.next_id += 1
        await self.upstream.send_str(
            json.dumps({"id": self.next_id, "method": method, "params": params})
        )

    async def reply(self, message: dict[str, Any], result: dict[str, Any]) -> None:
        out: dict[str, Any] = {"id": message["id"], "result": result}
        if "sessionId" in message:
            out["sessionId"] = message["sessionId"]
        await self.client.send_str(json.dumps(out))

    async def reply_error(self, message: dict[str, Any], text: str) -> None:
        out: dict[str, Any] = {"id": message["id"], "error": {"code": -32000, "message": text}}
        if "sessionId" in message:
            out["sessionId"] = message["sessionId"]
        await self.client.send_str(json.dumps(out))


async def _pump(source: Any, handle: Any) -> None:
    async for frame in source:
        if frame.type != aiohttp.WSMsgType.TEXT:
            break
        await handle(json.loads(frame.data))


async def _serve_one(
    request: web.Request, state: PinState, upstream_url: str, done: asyncio.Event
) -> web.WebSocketResponse:
    client = web.WebSocketResponse(max_msg_size=0)
    await client.prepare(request)
    async with aiohttp.ClientSession() as http, http.ws_connect(upstream_url, max_msg_size=0) as up:
        pump = _Pump(state, client, up)
        tasks = [
            asyncio.create_task(_pump(client, pump.from_client)),
            asyncio.create_task(_pump(up, pump.from_upstream)),
        ]
        _, waiting = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in waiting:
            task.cancel()
        # The browser went away (or Playwright left): close the other side too.
        done.set()
    await client.close()
    return client


@contextlib.asynccontextmanager
async def pinned_endpoint(upstream_url: str, state: PinState) -> AsyncIterator[str]:
    """Serve a pinned view of ``upstream_url`` (a browser's ``ws://`` endpoint) on loopback;
    yields the ``ws://127.0.0.1:<port>/...`` URL to give ``connect_over_cdp``."""
    done = asyncio.Event()

    async def handler(request: web.Request) -> web.WebSocketResponse:
        return await _serve_one(request, state, upstream_url, done)

    # A random path: another local process cannot guess its way onto the job's tab.
    path = f"/devtools/browser/{secrets.token_hex(16)}"
    app = web.Application()
    app.router.add_get(path, handler)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        port = runner.addresses[0][1]
        yield f"ws://127.0.0.1:{port}{path}"
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(runner.cleanup(), 5.0)
