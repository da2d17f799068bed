"""The per-fetch proxy over real sockets: credentials, schemes, every request checked on its own,
one private answer among several refuses the name, and the exact checked address is used."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from aiohttp import web

from oraculum.fetch.addresses import PUBLIC_ONLY
from oraculum.fetch.proxy import FetchProxy, Target, check_target, system_resolver

from .support import (
    ORIGIN_IP,
    PRIVATE_IP,
    TEST_POLICY,
    DeclaredPublic,
    Hits,
    ScriptedResolver,
    recording_app,
    serve,
)


class Client:
    """A raw HTTP/1.1 client of the proxy on one kept-alive connection."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    async def send(self, head: str) -> tuple[int, dict[str, str], bytes]:
        self.writer.write(head.replace("\n", "\r\n").encode() + b"\r\n")
        await self.writer.drain()
        status_line = await self.reader.readline()
        headers: dict[str, str] = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            headers[name.strip().lower()] = value.strip()
        body = b""
        if "content-length" in headers:
            body = await self.reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding") == "chunked":
            body = await _chunks(self.reader)
        return int(status_line.split()[1]), headers, body


async def _chunks(reader: asyncio.StreamReader) -> bytes:
    body = b""
    while size := int((await reader.readline()).strip(), 16):
        body += await reader.readexactly(size)
        await reader.readline()
    await reader.readline()
    return body


async def get(client: Client, proxy: FetchProxy, host: str, path: str) -> tuple[int, bytes]:
    """An absolute-form GET of ``http://{host}{path}`` with the proxy's credentials."""
    head = f"GET http://{host}{path} HTTP/1.1\nHost: {host}\n{auth(proxy)}\n"
    status, _, body = await client.send(head)
    return status, body


def auth(proxy: FetchProxy) -> str:
    token = base64.b64encode(f"{proxy.username}:{proxy.password}".encode()).decode()
    return f"Proxy-Authorization: Basic {token}"


@pytest_asyncio.fixture
async def origin() -> AsyncIterator[tuple[int, Hits, Hits]]:
    """A test origin on ORIGIN_IP and a private service on PRIVATE_IP, on the same port."""
    public_hits, private_hits = Hits(), Hits()
    async with serve(recording_app(public_hits, "public page"), ORIGIN_IP) as port:  # noqa: SIM117
        async with serve(recording_app(private_hits), PRIVATE_IP, port):  # the same port
            yield port, public_hits, private_hits


async def connect(proxy: FetchProxy) -> Client:
    reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
    return Client(reader, writer)


async def test_one_private_answer_among_several_refuses_the_name() -> None:
    resolver = ScriptedResolver({"mixed.test": [["93.184.215.14", "2606:4700::1", "10.0.0.7"]]})
    result = await check_target("mixed.test", 80, PUBLIC_ONLY, resolver)
    assert not isinstance(result, Target)
    assert result.addresses == ("93.184.215.14", "2606:4700::1", "10.0.0.7")
    assert result.reason == "10.0.0.7 is private (RFC 1918)"
    async with FetchProxy(PUBLIC_ONLY, resolver) as proxy:
        client = await connect(proxy)
        status, _, body = await client.send(
            f"GET http://mixed.test/ HTTP/1.1\nHost: mixed.test\n{auth(proxy)}\n"
        )
    assert status == 403
    assert b"10.0.0.7 is private" in body
    assert [d.host for d in proxy.denials] == ["mixed.test"]


async def test_all_public_answers_connect_to_the_first() -> None:
    resolver = ScriptedResolver({"ok.test": [["93.184.215.14", "2606:4700::1"]]})
    result = await check_target("ok.test", 443, PUBLIC_ONLY, resolver)
    assert isinstance(result, Target)
    assert str(result.address) == "93.184.215.14"


@pytest.mark.parametrize("host", ["0x7f000001", "2130706433", "017700000001", "127.1", "[::1]"])
async def test_numeric_spellings_of_loopback_are_refused(host: str) -> None:
    result = await check_target(host.strip("[]"), 80, PUBLIC_ONLY, system_resolver)
    assert not isinstance(result, Target)
    assert "loopback" in result.reason


async def test_the_system_resolvers_answers_are_checked_too() -> None:
    result = await check_target("localhost", 80, PUBLIC_ONLY, system_resolver)
    assert not isinstance(result, Target)
    assert "loopback" in result.reason


async def test_requests_need_this_fetchs_credentials() -> None:
    async with FetchProxy(TEST_POLICY, ScriptedResolver({})) as proxy:
        missing = await (await connect(proxy)).send("GET http://a.test/ HTTP/1.1\nHost: a.test\n")
        wrong = await (await connect(proxy)).send(
            "GET http://a.test/ HTTP/1.1\nHost: a.test\n"
            "Proxy-Authorization: Basic " + base64.b64encode(b"fetch:guess").decode() + "\n"
        )
    assert missing[0] == 407
    assert missing[1]["proxy-authenticate"].startswith("Basic")
    assert wrong[0] == 407


@pytest.mark.parametrize(
    ("request_line", "expected"),
    [
        ("GET ftp://a.test/file HTTP/1.1", b"scheme 'ftp' is refused"),
        ("GET file:///etc/passwd HTTP/1.1", b"scheme 'file' is refused"),
        ("GET https://a.test/ HTTP/1.1", b"scheme 'https' is refused"),
        ("GET http://user:pw@a.test/ HTTP/1.1", b"credentials in the URL are refused"),
        ("GET /relative HTTP/1.1", b"scheme '(none)' is refused"),
        ("CONNECT a.test:443/path HTTP/1.1", b"CONNECT takes host:port only"),
        ("CONNECT a.test HTTP/1.1", b"a port between 1 and 65535 is required"),
    ],
)
async def test_malformed_or_other_scheme_requests_are_refused(
    request_line: str, expected: bytes
) -> None:
    async with FetchProxy(TEST_POLICY, ScriptedResolver({})) as proxy:
        client = await connect(proxy)
        status, _, body = await client.send(f"{request_line}\nHost: a.test\n{auth(proxy)}\n")
    assert status == 400
    assert expected in body


async def test_each_request_on_a_kept_alive_connection_is_checked(
    origin: tuple[int, Hits, Hits],
) -> None:
    port, public_hits, private_hits = origin
    resolver = ScriptedResolver({"origin.test": [[ORIGIN_IP]], "local.test": [[PRIVATE_IP]]})
    async with FetchProxy(TEST_POLICY, resolver) as proxy:
        client = await connect(proxy)
        first = await get(client, proxy, f"origin.test:{port}", "/a?b=1")
        second = await get(client, proxy, f"origin.test:{port}", "/c")
        third = await get(client, proxy, f"local.test:{port}", "/secret")
    assert (first, second[0]) == ((200, b"public page"), 200)
    assert third[0] == 403
    # origin form upstream, the Host header kept, no proxy credentials forwarded
    assert [path for path, _ in public_hits.seen] == ["/a?b=1", "/c"]
    headers = public_hits.seen[0][1]
    assert headers["Host"] == f"origin.test:{port}"
    assert "Proxy-Authorization" not in headers
    assert private_hits.seen == []
    assert proxy.denials[0].reason == f"{PRIVATE_IP} is loopback"


async def test_a_rebinding_name_cannot_reach_the_private_address(
    origin: tuple[int, Hits, Hits],
) -> None:
    port, public_hits, private_hits = origin
    resolver = ScriptedResolver({"rebind.test": [[ORIGIN_IP], [PRIVATE_IP]]})
    async with FetchProxy(TEST_POLICY, resolver) as proxy:
        client = await connect(proxy)
        head = f"GET http://rebind.test:{port}/ HTTP/1.1\nHost: rebind.test:{port}\n{auth(proxy)}\n"
        first = await client.send(head)
        second = await client.send(head)
    assert first[0] == 200
    assert second[0] == 403
    assert resolver.lookups == ["rebind.test", "rebind.test"]
    assert len(public_hits.seen) == 1
    assert private_hits.seen == []


async def test_connect_tunnels_to_the_checked_address_keeping_the_name(
    origin: tuple[int, Hits, Hits],
) -> None:
    port, public_hits, private_hits = origin
    resolver = ScriptedResolver({"origin.test": [[ORIGIN_IP]], "private.test": [[PRIVATE_IP]]})
    async with FetchProxy(TEST_POLICY, resolver) as proxy:
        client = await connect(proxy)
        status, _, _ = await client.send(
            f"CONNECT origin.test:{port} HTTP/1.1\nHost: origin.test:{port}\n{auth(proxy)}\n"
        )
        assert status == 200
        # Inside the tunnel the bytes are the client's own (TLS in real use).
        inner = await client.send(f"GET /tunnelled HTTP/1.1\nHost: origin.test:{port}\n")
        refused = await (await connect(proxy)).send(
            f"CONNECT private.test:{port} HTTP/1.1\nHost: private.test:{port}\n{auth(proxy)}\n"
        )
    assert inner[:1] == (200,)
    assert inner[2] == b"public page"
    assert public_hits.seen[0][0] == "/tunnelled"
    assert refused[0] == 403
    assert private_hits.seen == []


@pytest.mark.parametrize("method", ["CONNECT", "GET"])
@pytest.mark.parametrize("port", [22, 25, 5432, 6379, 9200])
async def test_tunnels_and_plain_requests_to_ports_that_are_not_web_ports_are_refused(
    port: int, method: str
) -> None:
    # A tunnel is raw TCP and a plain request reaches a text protocol half understood: the
    # product's policy keeps both to web ports, before any lookup.
    resolver = ScriptedResolver({"origin.test": [[ORIGIN_IP]]})
    policy = DeclaredPublic(TEST_POLICY.public, any_port=False)
    target = f"origin.test:{port}" if method == "CONNECT" else f"http://origin.test:{port}/"
    async with FetchProxy(policy, resolver) as proxy:
        refused = await (await connect(proxy)).send(
            f"{method} {target} HTTP/1.1\nHost: origin.test:{port}\n{auth(proxy)}\n"
        )
    assert refused[0] == 403
    assert f"port {port} is not a web port".encode() in refused[2]
    assert [(d.host, d.port) for d in proxy.denials] == [("origin.test", port)]
    assert resolver.lookups == []


def test_the_product_policy_allows_web_ports_only() -> None:
    assert [p for p in (80, 443, 8000, 8080, 8443) if PUBLIC_ONLY.port_reason(p)] == []
    assert PUBLIC_ONLY.port_reason(6379) == (
        "port 6379 is not a web port (fetches go to 80, 443, 8000, 8080, 8443 only)"
    )


@pytest.mark.parametrize(
    ("answers", "cause"),
    [({}, "did not resolve"), ({"gone.test": [[ORIGIN_IP]]}, "connection")],
)
async def test_a_name_that_does_not_resolve_or_a_refused_connection_is_a_failure_not_a_denial(
    answers: dict[str, list[list[str]]], cause: str
) -> None:
    # Nothing listens on ORIGIN_IP:81 (the test policy allows any port): connection refused.
    async with FetchProxy(TEST_POLICY, ScriptedResolver(answers)) as proxy:
        status, _, body = await (await connect(proxy)).send(
            f"GET http://gone.test:81/ HTTP/1.1\nHost: gone.test:81\n{auth(proxy)}\n"
        )
    assert status == 502 and cause.encode() in body
    assert proxy.denials == []
    assert [(f.host, f.port) for f in proxy.failures] == [("gone.test", 81)]
    assert cause in proxy.failures[0].reason


async def test_closing_the_proxy_ends_its_connections(origin: tuple[int, Hits, Hits]) -> None:
    port, _, _ = origin
    resolver = ScriptedResolver({"origin.test": [[ORIGIN_IP]]})
    proxy = FetchProxy(TEST_POLICY, resolver)
    async with proxy:
        client = await connect(proxy)
        await client.send(
            f"CONNECT origin.test:{port} HTTP/1.1\nHost: origin.test:{port}\n{auth(proxy)}\n"
        )
    assert await asyncio.wait_for(client.reader.read(), 5) == b""
    with pytest.raises(OSError):
        await asyncio.open_connection("127.0.0.1", proxy.port)


async def test_a_fetch_cannot_transfer_more_than_its_budget() -> None:
    big = "x" * 300_000

    async def large(request: web.Request) -> web.Response:
        return web.Response(text=big)

    app = web.Application()
    app.router.add_get("/large", large)
    resolver = ScriptedResolver({"origin.test": [[ORIGIN_IP]]})
    async with serve(app, ORIGIN_IP) as port:
        async with FetchProxy(TEST_POLICY, resolver, max_bytes=100_000) as proxy:
            client = await connect(proxy)
            with pytest.raises(asyncio.IncompleteReadError):
                await get(client, proxy, f"origin.test:{port}", "/large")
        async with FetchProxy(TEST_POLICY, resolver) as proxy:
            client = await connect(proxy)
            assert await get(client, proxy, f"origin.test:{port}", "/large") == (200, big.encode())
