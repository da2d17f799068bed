"""Test-only helpers for the fetch tests: a policy that declares the tests' own loopback origin
public (there is no such switch for users), a scripted resolver, and small real servers."""

from __future__ import annotations

import asyncio
import ipaddress
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from oraculum.fetch.addresses import IPAddress, denial_reason, web_port_reason

# The tests' "public" origin: a loopback address the test policy declares public. 127.0.0.1
# stays non-public, so it plays the private service a page must not reach.
ORIGIN_IP = "127.0.0.2"
PRIVATE_IP = "127.0.0.1"


@dataclass(frozen=True)
class DeclaredPublic:
    """An address policy for tests: the product's table, plus the addresses a test declares
    public."""

    public: frozenset[IPAddress]
    any_port: bool = True  # test origins listen on random ports

    def reason(self, address: IPAddress) -> str | None:
        if address in self.public:
            return None
        return denial_reason(address)

    def port_reason(self, port: int) -> str | None:
        return None if self.any_port else web_port_reason(port)


TEST_POLICY = DeclaredPublic(frozenset({ipaddress.ip_address(ORIGIN_IP)}))


@dataclass
class ScriptedResolver:
    """Names → successive answers (the last answer repeats); records every lookup."""

    answers: dict[str, list[list[str]]]
    lookups: list[str] = field(default_factory=list)

    async def __call__(self, host: str, port: int) -> list[str]:
        self.lookups.append(host)
        script = self.answers.get(host)
        if not script:
            raise OSError(f"no such name {host}")
        return script.pop(0) if len(script) > 1 else script[0]


@dataclass
class Hits:
    """What a test server saw: (path, headers) of each request."""

    seen: list[tuple[str, dict[str, str]]] = field(default_factory=list)


@asynccontextmanager
async def serve(app: web.Application, host: str, port: int = 0) -> AsyncIterator[int]:
    """Run ``app`` on ``host:port`` (0: any free port); yields the port."""
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    try:
        server = site._server
        assert server is not None
        yield server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    finally:
        await runner.cleanup()


def recording_app(hits: Hits, body: str = "private data") -> web.Application:
    """Answers every path with ``body`` and records the request."""

    async def any_path(request: web.Request) -> web.Response:
        hits.seen.append((request.path_qs, dict(request.headers)))
        return web.Response(text=body)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", any_path)
    return app


class BackgroundLoop:
    """An event loop in a thread, for servers that sync tests (which call ``fetch``, itself
    running ``asyncio.run``) talk to."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.runners: list[web.AppRunner] = []

    def serve(self, app: web.Application, host: str, port: int = 0, ssl: Any = None) -> int:
        async def start() -> int:
            runner = web.AppRunner(app, shutdown_timeout=1.0)  # a hanging handler is dropped
            await runner.setup()
            site = web.TCPSite(runner, host, port, ssl_context=ssl)
            await site.start()
            self.runners.append(runner)
            return int(runner.addresses[-1][1])

        return asyncio.run_coroutine_threadsafe(start(), self.loop).result(10)

    def close(self) -> None:
        async def stop() -> None:
            for runner in self.runners:
                await runner.cleanup()

        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
