"""browser_fetch end to end with real Chromium: a test origin (declared public by the tests' own
policy object) is rendered to Markdown, and nothing it points at that is not public —
redirects, images, iframes, fetch(), WebSocket, to 127.0.0.1, [::1], 169.254.169.254, 0.0.0.0,
a name resolving to 10.x, a rebinding name — ever reaches a private server."""

from __future__ import annotations

import asyncio
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import psutil
import pytest
from aiohttp import web

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.fetch.render import render
from oraculum.fetch.service import FetchResult, fetch

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


KINDS = ("img", "iframe", "fetch", "websocket")
AUTOFILL = ("name", "email", "tel", "street-address", "postal-code", "country", "cc-number")
STUN_HOSTS = (PRIVATE_IP, ORIGIN_IP)


@dataclass
class Site:
    port: int  # the origin (ORIGIN_IP) and the private service (PRIVATE_IP) share it
    # per kind of request: a private service on 127.0.0.1 and one on [::1], each its own port
    v4_ports: dict[str, int]
    v6_ports: dict[str, int]
    origin_hits: Hits
    private_hits: Hits
    cancel_seen: threading.Event
    udp: socket.socket  # a STUN server's port on 127.0.0.1: WebRTC must send it nothing

    @property
    def udp_port(self) -> int:
        return int(self.udp.getsockname()[1])

    def resolver(self, **extra: list[list[str]]) -> ScriptedResolver:
        answers = {"origin.test": [[ORIGIN_IP]], "internal.test": [["10.0.0.5"]], **extra}
        return ScriptedResolver(answers)

    def url(self, path: str, host: str = "origin.test") -> str:
        return f"http://{host}:{self.port}{path}"

    def targets(self, kind: str) -> list[tuple[str, int]]:
        """Where a request of ``kind`` tries to go: each (host, port) only this kind uses."""
        index = KINDS.index(kind)
        return [
            (PRIVATE_IP, self.v4_ports[kind]),
            ("[::1]", self.v6_ports[kind]),
            ("169.254.169.254", 8080 + index),
            ("internal.test", 8080 + index),
            ("0.0.0.0", self.v4_ports[kind]),
        ]


def origin_app(hits: Hits, site_box: list[Site], cancel_seen: threading.Event) -> web.Application:
    def page(body: str, title: str = "Test origin") -> web.Response:
        html = f"<!doctype html><html><head><title>{title}</title></head><body>{body}</body></html>"
        return web.Response(text=html, content_type="text/html")

    async def index(request: web.Request) -> web.Response:
        hits.seen.append((request.path_qs, dict(request.headers)))
        return page(f"<h1>Hello fetch</h1>{ARTICLE}<a href='/next'>next page</a>")

    async def leaks(request: web.Request) -> web.Response:
        site = site_box[0]
        urls = {k: [f"http://{h}:{p}/{k}" for h, p in site.targets(k)] for k in KINDS}
        images = "".join(f"<img src='{u}'>" for u in urls["img"])
        frames = "".join(f"<iframe src='{u}'></iframe>" for u in urls["iframe"])
        script = (
            f"for (const u of {urls['fetch']!r}) fetch(u, {{mode: 'no-cors'}}).catch(() => {{}});"
            f"for (const u of {urls['websocket']!r}) {{"
            "  try { new WebSocket(u.replace('http', 'ws')); } catch (e) {}"
            "}"
            "document.title = 'Leaks tried';"
        )
        body = f"<h1>Leaks</h1>{ARTICLE}{images}<img src='/redirect-img'>{frames}"
        return page(body + f"<script>{script}</script>")

    async def redirect(request: web.Request) -> web.Response:
        raise web.HTTPFound(f"http://{PRIVATE_IP}:{site_box[0].port}/secret")

    async def redirect_img(request: web.Request) -> web.Response:
        raise web.HTTPFound("http://169.254.169.254:8090/latest/meta-data/")

    async def rebind(request: web.Request) -> web.Response:
        script = "fetch('/secret').then(r => r.text()).then(t => document.title = t)"
        return page(f"{ARTICLE}<script>{script}</script>", title="rebind")

    async def login(request: web.Request) -> web.Response:
        form = "<form><input name=user><input type=password name=pw><button>Go</button></form>"
        return page(f"<h1>Sign in to continue</h1>{form}", title="Sign in")

    async def captcha(request: web.Request) -> web.Response:
        return page("<h1>Please verify you are human</h1><div class=captcha></div>")

    async def webrtc(request: web.Request) -> web.Response:
        servers = ", ".join(f"{{urls: 'stun:{h}:{site_box[0].udp_port}'}}" for h in STUN_HOSTS)
        script = (
            f"const pc = new RTCPeerConnection({{iceServers: [{servers}]}});"
            "pc.createDataChannel('probe');"
            "pc.onicecandidate = (e) => { if (e.candidate) document.title += '+'; };"
            "pc.createOffer().then((offer) => pc.setLocalDescription(offer));"
        )
        return page(f"{ARTICLE}<script>{script}</script>", title="webrtc")

    async def form(request: web.Request) -> web.Response:
        # Chromium's autofill asked content-autofill.googleapis.com about a page like this.
        fields = "".join(f"<label>{n}<input name={n} autocomplete={n}></label>" for n in AUTOFILL)
        return page(
            f"<h1>Order</h1>{ARTICLE}<form action=/order>{fields}<button>Buy</button></form>"
        )

    async def self_navigation(request: web.Request) -> web.Response:
        target = f"http://{PRIVATE_IP}:{site_box[0].port}/secret"
        return page(f"{ARTICLE}<script>setTimeout(() => location = '{target}', 50)</script>")

    async def credentials(request: web.Request) -> web.Response:
        raise web.HTTPFound(f"http://user:secret@origin.test:{site_box[0].port}/landing")

    async def landing(request: web.Request) -> web.Response:
        hits.seen.append((request.path_qs, dict(request.headers)))
        return page(ARTICLE)

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
        "/form": form,
        "/self-navigation": self_navigation,
        "/credentials": credentials,
        "/landing": landing,
        "/webrtc": webrtc,
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
    site_box: list[Site] = []
    try:
        port = servers.serve(origin_app(origin_hits, site_box, cancel_seen), ORIGIN_IP)
        servers.serve(recording_app(private_hits), PRIVATE_IP, port)
        v4 = {k: servers.serve(recording_app(private_hits), PRIVATE_IP) for k in KINDS}
        v6 = {k: servers.serve(recording_app(private_hits), "::1") for k in KINDS}
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        udp.bind((PRIVATE_IP, 0))
        udp.setblocking(False)
        site_box.append(Site(port, v4, v6, origin_hits, private_hits, cancel_seen, udp))
        yield site_box[0]
        udp.close()
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
    assert result.title == "Test origin"
    assert result.status == 200
    assert result.final_url == site.url("/")
    assert "# Hello fetch" in result.markdown
    assert "[next page](/next)" in result.markdown
    assert result.blocked == []
    assert not result.truncated
    document = result.text("cli")
    assert document.startswith(f"# Test origin\n\nURL: {site.url('/')}\nStatus: 200\n")
    assert chromium_children() == []


@pytest.fixture(scope="module")
def leaks(site: Site) -> FetchResult:
    """One fetch of the page that tries every kind of request to every private target."""
    return fetch(site.url("/leaks"), policy=TEST_POLICY, resolver=site.resolver())


@pytest.mark.parametrize("kind", KINDS)
def test_subresources_iframes_fetch_and_websockets_to_private_addresses_are_blocked(
    site: Site, leaks: FetchResult, kind: str
) -> None:
    result = leaks
    assert result.title == "Leaks tried"  # the page ran its script
    blocked = {(d["host"], d["port"]): d for d in result.blocked}
    for host, port in site.targets(kind):
        assert (host.strip("[]"), port) in blocked, (kind, host, port, sorted(blocked))
    index = KINDS.index(kind)
    assert blocked[("internal.test", 8080 + index)]["reason"] == "10.0.0.5 is private (RFC 1918)"
    metadata = blocked[("169.254.169.254", 8080 + index)]["reason"]
    assert metadata == "169.254.169.254 is link-local (cloud metadata)"


def test_a_subresource_redirect_to_the_metadata_address_is_blocked(leaks: FetchResult) -> None:
    assert ("169.254.169.254", 8090) in {(d["host"], d["port"]) for d in leaks.blocked}


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
    assert result.status == 200
    assert resolver.lookups.count("rebind.test") >= 2
    assert ("rebind.test", site.port) in {(d["host"], d["port"]) for d in result.blocked}
    assert result.title != "private data"


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
    assert result.truncated is True
    assert len(result.markdown) <= 60_000
    assert result.markdown.startswith("Paragraph 0.")


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
    # Its random port is refused first, before any browser starts; on a web port, its
    # address (test_proxy: the product policy refuses loopback answers).
    reason = caught.value.details["blocked"][0]["reason"]
    assert reason.startswith(f"port {site.port} is not a web port")
    assert len(site.origin_hits.seen) == before


@pytest.fixture(scope="module")
def tls_origin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, list[str]]]:
    """An https origin on ORIGIN_IP with a self-signed certificate for origin.test; records the
    server name (SNI) each handshake asked for."""
    directory = tmp_path_factory.mktemp("tls")
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
         "/CN=origin.test", "-addext", "subjectAltName=DNS:origin.test",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    names: list[str] = []
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)

    def record_name(_sock: object, name: str | None, _ctx: object) -> None:
        names.append(str(name))

    context.sni_callback = record_name  # type: ignore[assignment]
    servers = BackgroundLoop()
    try:
        yield servers.serve(recording_app(Hits(), "tls page"), ORIGIN_IP, ssl=context), names
    finally:
        servers.close()


def test_https_is_tunnelled_keeping_the_name_and_chromiums_certificate_checks(
    site: Site, tls_origin: tuple[int, list[str]]
) -> None:
    port, names = tls_origin
    with pytest.raises(OracleError) as caught:
        fetch(f"https://origin.test:{port}/", policy=TEST_POLICY, resolver=site.resolver())
    assert caught.value.code == ErrorCode.FETCH_FAILED
    assert "ERR_CERT" in caught.value.message  # the self-signed certificate is not trusted
    assert names and set(names) == {"origin.test"}  # SNI carried the hostname end to end


def test_webrtc_sends_no_udp_outside_the_proxy(site: Site) -> None:
    result = fetch(site.url("/webrtc"), policy=TEST_POLICY, resolver=site.resolver())
    assert result.title.startswith("webrtc")  # the page ran its script
    with pytest.raises(BlockingIOError):
        site.udp.recvfrom(2048)  # no STUN binding request arrived


def test_a_fetch_past_its_time_budget_times_out_and_closes_chromium(site: Site) -> None:
    with pytest.raises(OracleError) as caught:
        fetch(site.url("/slow"), policy=TEST_POLICY, resolver=site.resolver(), timeout_s=5)
    assert caught.value.code == ErrorCode.FETCH_TIMEOUT
    assert caught.value.retryable
    assert chromium_children() == []


def test_a_page_that_navigates_itself_to_a_private_address_is_address_blocked(site: Site) -> None:
    with pytest.raises(OracleError) as caught:
        fetch(site.url("/self-navigation"), policy=TEST_POLICY, resolver=site.resolver())
    error = caught.value
    assert error.code == ErrorCode.FETCH_ADDRESS_BLOCKED
    assert error.details["finalUrl"] == f"http://{PRIVATE_IP}:{site.port}/secret"
    assert error.details["blocked"][0]["addresses"] == [PRIVATE_IP]
    assert f"{PRIVATE_IP} is loopback" in error.message


def test_a_redirect_to_a_url_with_credentials_is_not_followed(site: Site) -> None:
    before = len(site.origin_hits.seen)
    with pytest.raises(OracleError) as caught:
        fetch(site.url("/credentials"), policy=TEST_POLICY, resolver=site.resolver())
    assert caught.value.code == ErrorCode.FETCH_ADDRESS_BLOCKED
    assert "credentials in the URL are refused" in caught.value.message
    assert [p for p, _ in site.origin_hits.seen[before:] if p == "/landing"] == []


def test_every_connection_a_fetch_attempts_is_to_the_fetched_origin(site: Site) -> None:
    """Chromium's own background requests (autofill, optimization hints, safe browsing…)
    would go through the proxy too, which records every destination asked of it: a page with
    a form (autofill asked content-autofill.googleapis.com about one) tries its origin only."""
    resolver = site.resolver()
    rendered = asyncio.run(render(site.url("/form"), policy=TEST_POLICY, resolver=resolver))
    assert rendered.snapshot is not None and "Buy" in rendered.snapshot.text
    assert set(rendered.attempts) == {("origin.test", site.port)}
    assert set(resolver.lookups) == {"origin.test"}
    assert rendered.denials == []


@pytest.mark.parametrize(
    ("url", "cause"),
    [
        ("http://nowhere.test:{port}/", "nowhere.test did not resolve"),
        ("https://nowhere.test/", "nowhere.test did not resolve"),
        ("http://origin.test:{closed}/", "the connection to 127.0.0.2 failed"),
    ],
)
def test_an_unresolvable_name_or_a_refused_connection_is_fetch_failed(
    site: Site, url: str, cause: str
) -> None:
    with socket.socket() as spare:  # a port nothing listens on
        spare.bind((ORIGIN_IP, 0))
        closed = spare.getsockname()[1]
    with pytest.raises(OracleError) as caught:
        fetch(
            url.format(port=site.port, closed=closed), policy=TEST_POLICY, resolver=site.resolver()
        )
    error = caught.value
    assert error.code == ErrorCode.FETCH_FAILED and error.retryable
    assert cause in error.message
    assert error.details["blocked"] == []
