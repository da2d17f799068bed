"""browser_fetch end to end with real Chromium: a test origin (declared public by the tests' own
policy object) is rendered to Markdown, and nothing it points at that is not public —
redirects, images, iframes, fetch(), WebSocket, to 127.0.0.1, [::1], 169.254.169.254, 0.0.0.0,
a name resolving to 10.x, a rebinding name — ever reaches a private server."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import psutil
import pytest
from aiohttp import web

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.fetch.service import fetch, fetch_markdown

from .support import (
    ORIGIN_IP,
    PRIVATE_IP,
    TEST_POLICY,
    BackgroundLoop,
    Hits,
    ScriptedResolver,
    recording_app,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTICLE = "<p>" + "The quick brown fox jumps over the lazy dog. " * 6 + "</p>"


@dataclass
class Site:
    port: int  # the origin (ORIGIN_IP) and the private service (PRIVATE_IP) share it
    v6_port: int  # the private service on [::1]
    origin_hits: Hits
    private_hits: Hits
    cancel_seen: threading.Event

    def resolver(self, **extra: list[list[str]]) -> ScriptedResolver:
        answers = {"origin.test": [[ORIGIN_IP]], "internal.test": [["10.0.0.5"]], **extra}
        return ScriptedResolver(answers)

    def url(self, path: str, host: str = "origin.test") -> str:
        return f"http://{host}:{self.port}{path}"


def origin_app(hits: Hits, port_box: list[int], cancel_seen: threading.Event) -> web.Application:
    def page(body: str, title: str = "Test origin") -> web.Response:
        html = f"<!doctype html><html><head><title>{title}</title></head><body>{body}</body></html>"
        return web.Response(text=html, content_type="text/html")

    async def index(request: web.Request) -> web.Response:
        hits.seen.append((request.path_qs, dict(request.headers)))
        return page(f"<h1>Hello fetch</h1>{ARTICLE}<a href='/next'>next page</a>")

    async def leaks(request: web.Request) -> web.Response:
        port, v6 = port_box
        targets = [
            f"http://{PRIVATE_IP}:{port}",
            f"http://[::1]:{v6}",
            "http://169.254.169.254",
            f"http://internal.test:{port}",
            f"http://0.0.0.0:{port}",
        ]
        images = "".join(f"<img src='{t}/img'>" for t in targets)
        frames = "".join(f"<iframe src='{t}/frame'></iframe>" for t in targets)
        script = (
            f"const targets = {targets!r};"
            "for (const t of targets) {"
            "  fetch(t + '/fetch', {mode: 'no-cors'}).catch(() => {});"
            "  try { new WebSocket(t.replace('http', 'ws') + '/ws'); } catch (e) {}"
            "}"
            "document.title = 'Leaks tried';"
        )
        body = f"<h1>Leaks</h1>{ARTICLE}{images}<img src='/redirect-img'>{frames}"
        return page(body + f"<script>{script}</script>")

    async def redirect(request: web.Request) -> web.Response:
        raise web.HTTPFound(f"http://{PRIVATE_IP}:{port_box[0]}/secret")

    async def redirect_img(request: web.Request) -> web.Response:
        raise web.HTTPFound("http://169.254.169.254/latest/meta-data/")

    async def rebind(request: web.Request) -> web.Response:
        script = "fetch('/secret').then(r => r.text()).then(t => document.title = t)"
        return page(f"{ARTICLE}<script>{script}</script>", title="rebind")

    async def login(request: web.Request) -> web.Response:
        form = "<form><input name=user><input type=password name=pw><button>Go</button></form>"
        return page(f"<h1>Sign in to continue</h1>{form}", title="Sign in")

    async def captcha(request: web.Request) -> web.Response:
        return page("<h1>Please verify you are human</h1><div class=captcha></div>")

    async def empty(request: web.Request) -> web.Response:
        return page("<p>hi</p>")

    async def missing(request: web.Request) -> web.Response:
        return web.Response(
            status=404, text=f"<h1>Not here</h1>{ARTICLE}", content_type="text/html"
        )

    async def huge(request: web.Request) -> web.Response:
        return page("".join(f"<p>Paragraph {i}. {ARTICLE}</p>" for i in range(600)))

    async def slow(request: web.Request) -> web.Response:
        cancel_seen.set()
        await asyncio.sleep(60)
        return page(ARTICLE)

    app = web.Application()
    for path, handler in {
        "/": index,
        "/leaks": leaks,
        "/redirect": redirect,
        "/redirect-img": redirect_img,
        "/rebind": rebind,
        "/login": login,
        "/captcha": captcha,
        "/empty": empty,
        "/missing": missing,
        "/huge": huge,
        "/slow": slow,
    }.items():
        app.router.add_get(path, handler)
    return app


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    servers = BackgroundLoop()
    origin_hits, private_hits, cancel_seen = Hits(), Hits(), threading.Event()
    port_box: list[int] = []
    try:
        port = servers.serve(origin_app(origin_hits, port_box, cancel_seen), ORIGIN_IP)
        servers.serve(recording_app(private_hits), PRIVATE_IP, port)
        v6_port = servers.serve(recording_app(private_hits), "::1")
        port_box += [port, v6_port]
        yield Site(port, v6_port, origin_hits, private_hits, cancel_seen)
    finally:
        servers.close()


@pytest.fixture(autouse=True)
def no_private_hits(site: Site) -> Iterator[None]:
    """Whatever a test does, the private servers must see no request."""
    yield
    assert site.private_hits.seen == []


def chromium_children() -> list[psutil.Process]:
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if "chrom" in child.name().lower() or "headless" in child.name().lower():
                found.append(child)
        except psutil.NoSuchProcess:
            pass
    return found


def test_a_page_is_rendered_to_markdown(site: Site) -> None:
    result = fetch(site.url("/"), policy=TEST_POLICY, resolver=site.resolver())
    assert result["title"] == "Test origin"
    assert result["status"] == 200
    assert result["finalUrl"] == site.url("/")
    assert "# Hello fetch" in result["markdown"]
    assert "[next page](/next)" in result["markdown"]
    assert result["blocked"] == []
    assert not result["truncated"]
    document = fetch_markdown(result)
    assert document.startswith(f"# Test origin\n\nURL: {site.url('/')}\nStatus: 200\n")
    assert chromium_children() == []


def test_subresources_iframes_fetch_and_websockets_to_private_addresses_are_blocked(
    site: Site,
) -> None:
    result = fetch(site.url("/leaks"), policy=TEST_POLICY, resolver=site.resolver())
    assert result["title"] == "Leaks tried"  # the page ran its script
    blocked = {(d["host"], d["port"]) for d in result["blocked"]}
    assert {
        (PRIVATE_IP, site.port),
        ("::1", site.v6_port),
        ("169.254.169.254", 80),
        ("internal.test", site.port),
        ("0.0.0.0", site.port),
    } <= blocked, blocked
    reasons = {d["host"]: d["reason"] for d in result["blocked"]}
    assert reasons["internal.test"] == "10.0.0.5 is private (RFC 1918)"
    assert reasons["169.254.169.254"] == "169.254.169.254 is link-local (cloud metadata)"


def test_a_redirect_to_a_private_address_is_blocked_and_reported(site: Site) -> None:
    with pytest.raises(OracleError) as caught:
        fetch(site.url("/redirect"), policy=TEST_POLICY, resolver=site.resolver())
    error = caught.value
    assert error.code == ErrorCode.FETCH_ADDRESS_BLOCKED
    assert error.details["finalUrl"] == f"http://{PRIVATE_IP}:{site.port}/secret"
    assert "loopback" in error.message


def test_an_https_page_on_a_name_resolving_to_10_x_is_blocked(site: Site) -> None:
    with pytest.raises(OracleError) as caught:
        fetch("https://internal.test/", policy=TEST_POLICY, resolver=site.resolver())
    assert caught.value.code == ErrorCode.FETCH_ADDRESS_BLOCKED
    assert caught.value.details["blocked"][0]["addresses"] == ["10.0.0.5"]


def test_a_rebinding_name_cannot_reach_the_private_address(site: Site) -> None:
    resolver = site.resolver(**{"rebind.test": [[ORIGIN_IP], [PRIVATE_IP]]})
    result = fetch(site.url("/rebind", "rebind.test"), policy=TEST_POLICY, resolver=resolver)
    assert result["status"] == 200
    assert resolver.lookups.count("rebind.test") >= 2
    assert ("rebind.test", site.port) in {(d["host"], d["port"]) for d in result["blocked"]}
    assert result["title"] != "private data"


@pytest.mark.parametrize(
    ("path", "code", "kind"),
    [
        ("/login", ErrorCode.FETCH_PAGE_BLOCKED, "login"),
        ("/captcha", ErrorCode.FETCH_PAGE_BLOCKED, "anti_bot"),
        ("/empty", ErrorCode.FETCH_UNREADABLE, "unreadable"),
        ("/missing", ErrorCode.FETCH_HTTP_ERROR, "http_error"),
    ],
)
def test_blocked_and_unreadable_pages_are_reported(
    site: Site, path: str, code: ErrorCode, kind: str
) -> None:
    with pytest.raises(OracleError) as caught:
        fetch(site.url(path), policy=TEST_POLICY, resolver=site.resolver())
    assert caught.value.code == code
    assert caught.value.details["kind"] == kind


def test_long_pages_are_bounded(site: Site) -> None:
    result = fetch(site.url("/huge"), policy=TEST_POLICY, resolver=site.resolver())
    assert result["truncated"] is True
    assert len(result["markdown"]) <= 60_000
    assert result["markdown"].startswith("Paragraph 0.")


def test_cancelling_closes_chromium(site: Site) -> None:
    cancel = threading.Event()
    site.cancel_seen.clear()
    threading.Thread(target=lambda: site.cancel_seen.wait(30) and cancel.set()).start()
    with pytest.raises(OracleError) as caught:
        fetch(site.url("/slow"), policy=TEST_POLICY, resolver=site.resolver(), cancel=cancel)
    assert caught.value.code == ErrorCode.FETCH_CANCELLED
    assert site.cancel_seen.is_set()
    assert chromium_children() == []


def test_the_product_policy_refuses_the_test_origin(site: Site) -> None:
    """Without the tests' own policy object, their loopback origin is what it is: private."""
    before = len(site.origin_hits.seen)
    with pytest.raises(OracleError) as caught:
        fetch(site.url("/"), resolver=site.resolver())
    assert caught.value.code == ErrorCode.FETCH_ADDRESS_BLOCKED
    assert caught.value.details["blocked"][0]["reason"] == f"{ORIGIN_IP} is loopback"
    assert len(site.origin_hits.seen) == before
