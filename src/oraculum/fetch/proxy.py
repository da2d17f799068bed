"""The per-fetch loopback proxy: every request the fetch's Chromium makes goes through it.

It listens on 127.0.0.1 on a random port, answers only a client that presents this fetch's own
credentials, and for each request — every absolute-form ``http://`` request on a kept-alive
connection is parsed and checked on its own (h11), every ``CONNECT`` tunnel (https, wss) too —
it resolves the destination itself, refuses the request when ANY answer is not allowed by the
policy, and connects to the exact address it checked (no second resolution, so a rebinding name
cannot swap the address between check and use). The hostname is kept: the client's ``Host``
header goes upstream unchanged and a tunnel carries the client's own TLS (SNI and certificate
checks stay Chromium's). Other schemes, URL credentials and malformed targets are refused.
Each refusal is recorded (:attr:`FetchProxy.denials`) so the fetch can report it; a destination
allowed but not reached (a name that does not resolve, a refused connection) is recorded apart
(:attr:`FetchProxy.failures`): that is the fetch failing, not the policy refusing.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hmac
import secrets
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from urllib.parse import SplitResult, urlsplit

import h11

from oraculum.fetch.addresses import PUBLIC_ONLY, AddressPolicy, IPAddress, parse_host_literal
from oraculum.fetch.urls import has_credentials

__all__ = [
    "DNS_TIMEOUT_S",
    "REFUSAL_HEADER",
    "Denial",
    "FetchProxy",
    "Resolver",
    "Target",
    "Unreachable",
    "check_target",
    "system_resolver",
]

# A resolver answers every address of a name (strings, as getaddrinfo gives them).
Resolver = Callable[[str, int], Awaitable[list[str]]]

DNS_TIMEOUT_S = 5.0
CONNECT_TIMEOUT_S = 10.0
IDLE_TIMEOUT_S = 30.0  # a tunnel or upstream read that stays silent this long is closed
MAX_BYTES = 64 * 1024 * 1024  # per fetch, both directions: a page cannot stream forever
MAX_HEADER_BYTES = 64 * 1024
READ_CHUNK = 64 * 1024
_HOP_BY_HOP = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-authenticate",
        b"proxy-authorization",
        b"proxy-connection",
        b"te",
        b"trailer",
        b"upgrade",
    }
)
_REALM = b'Basic realm="oraculum-fetch"'
# Marks the proxy's own refusals, so the fetch can tell "the page was refused" from "the page
# answered 403".
REFUSAL_HEADER = "x-oraculum-fetch-refused"


async def system_resolver(host: str, port: int) -> list[str]:
    """Every address the system resolver gives for ``host`` (all families, in its order)."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


@dataclass(frozen=True)
class Denial:
    """One refused destination: what was asked, what it resolved to, and why not."""

    host: str
    port: int
    addresses: tuple[str, ...]
    reason: str

    def to_dict(self) -> dict[str, object]:
        return {
            "host": self.host,
            "port": self.port,
            "addresses": list(self.addresses),
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Unreachable(Denial):
    """A destination the policy allows that could not be reached: its name did not resolve, or
    the connection failed. ``reason`` says which, in words."""


@dataclass(frozen=True)
class Target:
    """A checked destination: the exact address to connect to, for the name asked."""

    host: str
    port: int
    address: IPAddress


async def check_target(
    host: str, port: int, policy: AddressPolicy, resolver: Resolver
) -> Target | Denial:
    """Resolve ``host`` once and judge every answer; one refused answer refuses them all."""
    try:
        literal = parse_host_literal(host)
    except ValueError:
        return Denial(host, port, (), "malformed address")
    if literal is not None:
        answers: list[IPAddress] = [literal]
    else:
        try:
            found = await asyncio.wait_for(resolver(host, port), DNS_TIMEOUT_S)
            answers = [_address(a) for a in found]
        except (OSError, ValueError, TimeoutError) as exc:
            return Unreachable(host, port, (), f"{host} did not resolve ({_cause(exc)})")
    if not answers:
        return Unreachable(host, port, (), f"{host} has no address")
    shown = tuple(str(a) for a in answers)
    for address in answers:
        reason = policy.reason(address)
        if reason is not None:
            return Denial(host, port, shown, f"{address} is {reason}")
    return Target(host, port, answers[0])


def _cause(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def _address(text: str) -> IPAddress:
    parsed = parse_host_literal(text)
    if parsed is None:
        raise ValueError(f"resolver answered a non-address {text!r}")
    return parsed


class _Refused(Exception):
    """A request the proxy answers with ``status`` and closes."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class FetchProxy:
    """One fetch's proxy. ``async with`` starts it; leaving stops it and every connection."""

    policy: AddressPolicy = PUBLIC_ONLY
    resolver: Resolver = system_resolver
    username: str = field(default_factory=lambda: "fetch-" + secrets.token_hex(4))
    password: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    denials: list[Denial] = field(default_factory=list)
    failures: list[Unreachable] = field(default_factory=list)
    # Every destination asked of the proxy, allowed or not: what the fetch tried to reach.
    attempts: list[tuple[str, int]] = field(default_factory=list)
    port: int = 0
    _server: asyncio.Server | None = None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)
    max_bytes: int = MAX_BYTES  # both directions, every connection of this fetch together
    _spent: int = 0

    @property
    def server_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def __aenter__(self) -> FetchProxy:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            with contextlib.suppress(Exception):
                await self._server.wait_closed()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await _ClientConnection(self, reader, writer).serve()
        except (OSError, TimeoutError, asyncio.IncompleteReadError, h11.ProtocolError, _Refused):
            pass  # the browser sees a closed connection; nothing else to tell it
        finally:
            self._tasks.discard(task)
            writer.close()

    def authorised(self, request: h11.Request) -> bool:
        expected = b"Basic " + base64.b64encode(f"{self.username}:{self.password}".encode())
        for name, value in request.headers:
            if name == b"proxy-authorization":
                return hmac.compare_digest(value, expected)
        return False

    async def checked(self, host: str, port: int) -> Target:
        """The destination to connect to; else a recorded refusal (403) or failure (502)."""
        self.attempts.append((host, port))
        port_reason = self.policy.port_reason(port)
        if port_reason is not None:
            result: Target | Denial = Denial(host, port, (), port_reason)
        else:
            result = await check_target(host, port, self.policy, self.resolver)
        if isinstance(result, Unreachable):
            raise self.unreachable(result)
        if isinstance(result, Denial):
            self.denials.append(result)
            raise _Refused(403, f"oraculum fetch refused {host}:{port}: {result.reason}")
        return result

    def unreachable(self, failure: Unreachable) -> _Refused:
        self.failures.append(failure)
        return _Refused(
            502, f"oraculum fetch could not reach {failure.host}:{failure.port}: {failure.reason}"
        )

    async def open(self, target: Target) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        try:
            return await asyncio.wait_for(
                asyncio.open_connection(str(target.address), target.port), CONNECT_TIMEOUT_S
            )
        except (OSError, TimeoutError) as exc:
            reason = f"the connection to {target.address} failed ({_cause(exc)})"
            failure = Unreachable(target.host, target.port, (str(target.address),), reason)
            raise self.unreachable(failure) from exc

    def spend(self, count: int) -> None:
        self._spent += count
        if self._spent > self.max_bytes:
            raise _Refused(502, "the fetch's transfer budget is spent")


class _ClientConnection:
    """One connection from Chromium: a sequence of proxied requests, or one tunnel."""

    def __init__(
        self, proxy: FetchProxy, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self.proxy = proxy
        self.reader = reader
        self.writer = writer
        self.conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEADER_BYTES)

    async def serve(self) -> None:
        while True:
            event = await _next_event(self.conn, self.reader, self.proxy)
            if not isinstance(event, h11.Request):
                return
            try:
                keep_going = await self._one(event)
            except _Refused as refused:
                await self._refuse(refused)
                return
            if not keep_going or self.conn.our_state is not h11.DONE:
                return
            if self.conn.their_state is not h11.DONE:
                return
            self.conn.start_next_cycle()

    async def _one(self, request: h11.Request) -> bool:
        """Serve one request; True when the connection may carry another."""
        if not self.proxy.authorised(request):
            raise _Refused(407, "proxy authentication required")
        if request.method == b"CONNECT":
            await self._tunnel(request)
            return False
        return await _Forward(self, request).run()

    async def _tunnel(self, request: h11.Request) -> None:
        host, port = _authority(request.target)
        target = await self.proxy.checked(host, port)
        up_reader, up_writer = await self.proxy.open(target)
        try:
            await _next_event(self.conn, self.reader, self.proxy)  # the CONNECT's end
            self.writer.write(self.conn.send(h11.Response(status_code=200, headers=[])) or b"")
            leftover, _closed = self.conn.trailing_data
            if leftover:
                up_writer.write(leftover)
            await splice(self.reader, self.writer, up_reader, up_writer, self.proxy)
        finally:
            up_writer.close()

    async def _refuse(self, refused: _Refused) -> None:
        body = f"{refused}\n".encode()
        headers = [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
            (REFUSAL_HEADER.encode(), b"1"),
        ]
        if refused.status == 407:
            headers.append((b"proxy-authenticate", _REALM))
        with contextlib.suppress(h11.LocalProtocolError):
            self.writer.write(
                self.conn.send(h11.Response(status_code=refused.status, headers=headers)) or b""
            )
            self.writer.write(self.conn.send(h11.Data(data=body)) or b"")
            self.writer.write(self.conn.send(h11.EndOfMessage()) or b"")
        with contextlib.suppress(OSError):
            await self.writer.drain()


class _Forward:
    """One absolute-form request, sent to the checked address in origin form."""

    def __init__(self, client: _ClientConnection, request: h11.Request) -> None:
        self.client = client
        self.request = request
        self.upgrade = any(n == b"upgrade" for n, _v in request.headers)
        self.upstream = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEADER_BYTES)

    async def run(self) -> bool:
        host, port, path = _absolute(self.request.target)
        target = await self.client.proxy.checked(host, port)
        up_reader, up_writer = await self.client.proxy.open(target)
        try:
            await self._send_request(path, up_writer)
            return await self._relay_response(up_reader, up_writer)
        finally:
            up_writer.close()

    async def _send_request(self, path: bytes, up_writer: asyncio.StreamWriter) -> None:
        headers = [(n, v) for n, v in self.request.headers if n not in _HOP_BY_HOP]
        if self.upgrade:
            upgrade = [v for n, v in self.request.headers if n == b"upgrade"]
            headers += [(b"connection", b"upgrade"), (b"upgrade", upgrade[0])]
        else:
            headers.append((b"connection", b"close"))  # one upstream connection per request
        request = h11.Request(method=self.request.method, target=path, headers=headers)
        up_writer.write(self.upstream.send(request) or b"")
        client = self.client
        while True:
            event = await _next_event(client.conn, client.reader, client.proxy)
            if isinstance(event, h11.Data):
                up_writer.write(self.upstream.send(event) or b"")
                await up_writer.drain()
            elif isinstance(event, h11.EndOfMessage):
                up_writer.write(self.upstream.send(h11.EndOfMessage()) or b"")
                await up_writer.drain()
                return
            else:
                raise _Refused(400, "malformed request body")

    async def _relay_response(
        self, up_reader: asyncio.StreamReader, up_writer: asyncio.StreamWriter
    ) -> bool:
        client = self.client
        while True:
            event = await _next_event(self.upstream, up_reader, client.proxy)
            if isinstance(event, h11.InformationalResponse):
                if event.status_code == 101 and self.upgrade:
                    await self._switch(event, up_reader, up_writer)
                    return False
                continue  # 100 Continue and friends are the proxy's business, not Chromium's
            if isinstance(event, h11.Response):
                headers = [(n, v) for n, v in event.headers if n not in _HOP_BY_HOP]
                response = h11.Response(
                    status_code=event.status_code, headers=headers, reason=event.reason
                )
                client.writer.write(client.conn.send(response) or b"")
            elif isinstance(event, h11.Data):
                client.writer.write(client.conn.send(event) or b"")
                await client.writer.drain()
            elif isinstance(event, h11.EndOfMessage):
                client.writer.write(client.conn.send(h11.EndOfMessage()) or b"")
                await client.writer.drain()
                return True
            else:
                raise _Refused(502, "the upstream closed mid-response")

    async def _switch(
        self,
        event: h11.InformationalResponse,
        up_reader: asyncio.StreamReader,
        up_writer: asyncio.StreamWriter,
    ) -> None:
        """A WebSocket upgrade over absolute-form: answer 101, then carry raw bytes."""
        client = self.client
        client.writer.write(client.conn.send(event) or b"")
        from_client, _ = client.conn.trailing_data
        from_upstream, _ = self.upstream.trailing_data
        if from_client:
            up_writer.write(from_client)
        if from_upstream:
            client.writer.write(from_upstream)
        await splice(client.reader, client.writer, up_reader, up_writer, client.proxy)


async def _next_event(
    conn: h11.Connection, reader: asyncio.StreamReader, proxy: FetchProxy
) -> object:
    while True:
        event = conn.next_event()
        if event is not h11.NEED_DATA:
            return event
        data = await asyncio.wait_for(reader.read(READ_CHUNK), IDLE_TIMEOUT_S)
        proxy.spend(len(data))
        conn.receive_data(data)


async def splice(
    client_reader: asyncio.StreamReader,
    client_writer: asyncio.StreamWriter,
    up_reader: asyncio.StreamReader,
    up_writer: asyncio.StreamWriter,
    proxy: FetchProxy,
) -> None:
    """Copy both ways until either side ends or goes quiet, within the fetch's budget."""

    async def pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await asyncio.wait_for(reader.read(READ_CHUNK), IDLE_TIMEOUT_S):
            proxy.spend(len(data))
            writer.write(data)
            await writer.drain()

    pumps = [
        asyncio.ensure_future(pump(client_reader, up_writer)),
        asyncio.ensure_future(pump(up_reader, client_writer)),
    ]
    try:
        await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in pumps:
            task.cancel()
        await asyncio.gather(*pumps, return_exceptions=True)


def _authority(target: bytes) -> tuple[str, int]:
    """``host:port`` of a CONNECT, nothing else (no path, query or credentials)."""
    text = _ascii(target)
    if any(c in text for c in "/?#@") or not text:
        raise _Refused(400, "CONNECT takes host:port only")
    parsed = urlsplit(f"//{text}")
    return _host_port(parsed.hostname, _port(parsed), default=None)


def _absolute(target: bytes) -> tuple[str, int, bytes]:
    """(host, port, origin-form path) of an absolute-form ``http://`` (or ``ws://``) target."""
    parsed = urlsplit(_ascii(target))
    if parsed.scheme not in ("http", "ws"):
        raise _Refused(400, f"scheme {parsed.scheme or '(none)'!r} is refused")
    if has_credentials(parsed):
        raise _Refused(400, "credentials in the URL are refused")
    host, port = _host_port(parsed.hostname, _port(parsed), default=80)
    path = parsed.path or "/"
    if parsed.query:
        path += "?" + parsed.query
    return host, port, path.encode("ascii")


def _port(parsed: SplitResult) -> int | None:
    try:
        return parsed.port
    except ValueError as exc:
        raise _Refused(400, "malformed port") from exc


def _host_port(host: str | None, port: int | None, *, default: int | None) -> tuple[str, int]:
    if not host:
        raise _Refused(400, "no host")
    chosen = port if port is not None else default
    if chosen is None or not 0 < chosen < 65536:
        raise _Refused(400, "a port between 1 and 65535 is required")
    return host, chosen


def _ascii(target: bytes) -> str:
    try:
        return target.decode("ascii")
    except UnicodeDecodeError as exc:
        raise _Refused(400, "the request target is not ASCII") from exc
