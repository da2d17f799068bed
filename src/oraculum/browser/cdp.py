"""The few raw DevTools calls a transport makes itself: read an HTTP endpoint, send one command.

Only loopback endpoints are ever contacted (the callers check that first); answers are bounded
in time and size so a hostile or hung listener cannot stall a job.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp

__all__ = [
    "LOOPBACK_NAMES",
    "CdpError",
    "Endpoint",
    "browser_id_of",
    "browser_ws_problem",
    "call",
    "get_json",
    "http_base",
    "socket_url",
]

# Loopback as written in a URL; "localhost" is only ever mapped to 127.0.0.1, never resolved.
LOOPBACK_NAMES = frozenset({"127.0.0.1", "::1", "localhost"})

TIMEOUT_S = 10.0
MAX_JSON_BYTES = 1024 * 1024


class CdpError(RuntimeError):
    """The endpoint did not answer, or answered with a DevTools error."""


async def get_json(url: str, *, timeout_s: float = TIMEOUT_S) -> Any:
    """GET ``url`` and parse its JSON body (at most 1 MiB); CdpError on any failure."""
    try:
        timeout = aiohttp.ClientTimeout(total=timeout_s)
        async with (
            aiohttp.ClientSession(timeout=timeout) as http,
            http.get(url, allow_redirects=False) as response,
        ):
            if response.status != 200:
                raise CdpError(f"{url} answered HTTP {response.status}")
            body = await response.content.read(MAX_JSON_BYTES + 1)
    except (TimeoutError, aiohttp.ClientError, OSError) as exc:
        raise CdpError(f"{url} did not answer ({type(exc).__name__}: {exc})") from exc
    if len(body) > MAX_JSON_BYTES:
        raise CdpError(f"{url} answered more than {MAX_JSON_BYTES} bytes")
    try:
        return json.loads(body)
    except ValueError as exc:
        raise CdpError(f"{url} did not answer JSON") from exc


async def call(
    ws_url: str, method: str, params: dict[str, Any] | None = None, *, timeout_s: float = TIMEOUT_S
) -> dict[str, Any]:
    """Send one browser-level command over a fresh connection and return its result."""
    try:
        timeout = aiohttp.ClientTimeout(total=timeout_s)
        async with (
            aiohttp.ClientSession(timeout=timeout) as http,
            http.ws_connect(ws_url, max_msg_size=0) as ws,
        ):
            await ws.send_json({"id": 1, "method": method, "params": params or {}})
            return await asyncio.wait_for(_answer(ws), timeout_s)
    except (TimeoutError, aiohttp.ClientError, OSError) as exc:
        raise CdpError(f"{method} failed ({type(exc).__name__}: {exc})") from exc


async def _answer(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    async for frame in ws:
        if frame.type != aiohttp.WSMsgType.TEXT:
            break
        message = json.loads(frame.data)
        if message.get("id") != 1:
            continue  # an event
        if "error" in message:
            raise CdpError(str(message["error"].get("message", message["error"])))
        result = message.get("result")
        return result if isinstance(result, dict) else {}
    raise CdpError("the browser closed the connection before answering")


_BROWSER_PATH = re.compile(r"^/devtools/browser/([0-9A-Za-z-]{8,64})$")


@dataclass(frozen=True)
class Endpoint:
    """A browser's DevTools endpoint that passed its transport's proof."""

    transport: str  # "managed" | "relay"
    http_url: str  # http://<loopback ip>:<port>
    ws_url: str  # the browser-level socket
    browser_id: str  # the id in the socket's path: a new one for every browser start


def browser_ws_problem(ws_url: Any, host: str, port: int) -> str | None:
    """Why a ``/json/version`` socket URL is not this loopback endpoint's own browser socket."""
    if not isinstance(ws_url, str):
        return "its /json/version has no webSocketDebuggerUrl"
    parts = urlsplit(ws_url)
    try:
        ws_port = parts.port
    except ValueError:
        return "its webSocketDebuggerUrl has an invalid port"
    if parts.scheme != "ws" or parts.hostname not in LOOPBACK_NAMES:
        return f"its browser socket is not on loopback ({parts.scheme}://{parts.hostname})"
    if ws_port != port or (parts.hostname != host and parts.hostname != "localhost"):
        return f"its browser socket points elsewhere ({parts.hostname}:{ws_port})"
    if _BROWSER_PATH.match(parts.path) is None:
        return "its webSocketDebuggerUrl is not a DevTools browser socket"
    return None


def browser_id_of(ws_url: str) -> str:
    match = _BROWSER_PATH.match(urlsplit(ws_url).path)
    return match.group(1) if match else ""


def socket_url(host: str, port: int, ws_url: str) -> str:
    """The browser socket on the literal loopback address (never a name to resolve)."""
    shown = f"[{host}]" if ":" in host else host
    return f"ws://{shown}:{port}{urlsplit(ws_url).path}"


def http_base(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"
