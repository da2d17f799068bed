"""The relay transport's endpoint: the user's own Chrome, reached on loopback only.

The user starts Chrome with a DevTools port and opts in (``browser.relay.enabled``) in the
global config. Before a job touches it, the endpoint must be a loopback address written as a
literal (``localhost`` is taken as 127.0.0.1, never resolved) and must answer
``/json/version`` like a Chrome browser whose socket is on that same address and port.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from oraculum.browser import cdp
from oraculum.core.config import relay_endpoint_problem
from oraculum.core.errors import ErrorCode, OracleError

__all__ = [
    "RelayTarget",
    "opted_in",
    "parse_relay_endpoint",
    "prove_relay",
    "prove_relay_now",
    "version_problem",
]


@dataclass(frozen=True)
class RelayTarget:
    host: str  # a literal loopback address
    port: int


def parse_relay_endpoint(endpoint: str) -> RelayTarget:
    problem = relay_endpoint_problem(endpoint)
    if problem:
        raise OracleError(
            ErrorCode.RELAY_ENDPOINT_REFUSED,
            f"The relay endpoint {endpoint!r} {problem}.",
            rejected_value=endpoint,
            suggested_next_step="Set browser.relay.endpoint in the global config to "
            "http://127.0.0.1:<port> of a Chrome started with --remote-debugging-port.",
        )
    parts = urlsplit(endpoint)
    host = "127.0.0.1" if parts.hostname == "localhost" else str(parts.hostname)
    return RelayTarget(host, int(parts.port or 0))


def version_problem(version: Any, target: RelayTarget) -> str | None:
    """Why a ``/json/version`` answer does not prove a Chrome browser at ``target``."""
    if not isinstance(version, dict) or not isinstance(version.get("Browser"), str):
        return "it does not answer /json/version like a Chrome DevTools endpoint"
    return cdp.browser_ws_problem(version.get("webSocketDebuggerUrl"), target.host, target.port)


def unproven(endpoint: str, why: str) -> OracleError:
    return OracleError(
        ErrorCode.RELAY_ENDPOINT_UNPROVEN,
        f"The relay endpoint {endpoint} is not a Chrome DevTools endpoint oraculum can use: {why}.",
        rejected_value=endpoint,
        retryable=True,
        suggested_next_step="Start Chrome with --remote-debugging-port=<port> on this machine "
        "and point browser.relay.endpoint at http://127.0.0.1:<port>.",
    )


def opted_in(endpoint: str | None, *, enabled: bool) -> str:
    """The relay's endpoint once the user opted in (enabled, with an endpoint), else
    ``relay_not_enabled``."""
    if not enabled or not endpoint:
        raise OracleError(
            ErrorCode.RELAY_NOT_ENABLED,
            "browser.transport is relay, but the relay is not opted into "
            "(browser.relay.enabled and browser.relay.endpoint in the global config).",
            suggested_next_step="Set browser.relay.enabled to true and browser.relay.endpoint "
            "in the global config, or set browser.transport back to isolated.",
        )
    return endpoint


def prove_relay_now(endpoint: str | None, *, enabled: bool) -> cdp.Endpoint:
    """:func:`prove_relay` from synchronous code, inside a running event loop or not (on a
    thread of its own: a few loopback requests, each time-bounded)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, prove_relay(endpoint, enabled=enabled)).result()


async def prove_relay(endpoint: str | None, *, enabled: bool) -> cdp.Endpoint:
    """The proven relay endpoint, or ``relay_not_enabled`` / ``relay_endpoint_refused`` /
    ``relay_endpoint_unproven``."""
    endpoint = opted_in(endpoint, enabled=enabled)
    target = parse_relay_endpoint(endpoint)
    base = cdp.http_base(target.host, target.port)
    try:
        version = await cdp.get_json(f"{base}/json/version")
    except cdp.CdpError as exc:
        raise unproven(endpoint, str(exc)) from exc
    problem = version_problem(version, target)
    if problem:
        raise unproven(endpoint, problem)
    ws = cdp.socket_url(target.host, target.port, version["webSocketDebuggerUrl"])
    return cdp.Endpoint("relay", base, ws, cdp.browser_id_of(ws))
