"""One rendered fetch: a fresh headless Chromium whose every request goes through this fetch's
own loopback proxy (:mod:`oraculum.fetch.proxy`), closed when the fetch ends however it ends.

Chromium defers all name resolution to an HTTP proxy, so it never resolves a name itself; its
implicit direct routes for loopback and link-local addresses are removed (``<-loopback>``),
QUIC is off, WebRTC may not send UDP outside the proxy, unspecified addresses may not bypass it,
and service workers are blocked. Playwright's ``launch`` gives each browser a fresh temporary
profile, deleted when it closes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, Request, Response
from playwright.async_api import TimeoutError as PlaywrightTimeout

from oraculum.browser.chromium import launch_args, playwright_driver, resolve_executable
from oraculum.fetch.addresses import AddressPolicy
from oraculum.fetch.credentials import refuse_credentials
from oraculum.fetch.page import (
    EXTRACT_JS,
    MAX_HTML_CHARS,
    MAX_TEXT_CHARS,
    MAX_TITLE_CHARS,
    Snapshot,
)
from oraculum.fetch.proxy import REFUSAL_HEADER, Denial, FetchProxy, Resolver, Unreachable
from oraculum.fetch.urls import url_port

__all__ = ["FETCH_ARGS", "NAVIGATION_TIMEOUT_S", "SETTLE_S", "Rendered", "render"]

NAVIGATION_TIMEOUT_S = 20.0
SETTLE_S = 2.0  # after load, wait this long at most for the network to go quiet
_D = TypeVar("_D", bound=Denial)

FETCH_ARGS: tuple[str, ...] = (
    "--disable-quic",
    "--disable-dev-shm-usage",
    "--disable-extensions",
    # WebRTC ignores HTTP proxies; headless-shell honours one switch, the full browser the other.
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--dns-prefetch-disable",
    "--no-pings",
    # Defence in depth: nothing should resolve locally behind an HTTP proxy.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    # 0.0.0.0 / [::] may otherwise go direct; DoH only matters if something resolved locally.
    # The rest are Chromium's own background requests, which --disable-background-networking
    # leaves on: a page with a form made it ask content-autofill.googleapis.com.
    "--disable-features=BypassProxyForUnspecifiedIpAddresses,DnsOverHttps,"
    "AutofillServerCommunication,OptimizationHints,OptimizationGuideModelDownloading,"
    "MediaRouter,DialMediaRouteProvider,CertificateTransparencyComponentUpdater,"
    "Translate,InterestFeedContentSuggestions,SafeBrowsing",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--disable-component-extensions-with-background-pages",
    "--disable-default-apps",
    "--disable-breakpad",
    "--metrics-recording-only",
    "--disable-blink-features=SharedWorker",
)


@dataclass
class Rendered:
    """What one fetch saw. ``error`` is the navigation's failure, if any; ``main_denial`` the
    proxy's refusal of the page itself (as opposed to one of its resources)."""

    requested_url: str
    final_url: str = ""
    status: int | None = None
    snapshot: Snapshot | None = None
    error: str | None = None
    timed_out: bool = False
    refused: bool = False  # the proxy itself answered the page's last navigation
    navigation_failed: bool = False  # the page's last navigation got no response at all
    main_denial: Denial | None = None
    main_failure: Unreachable | None = None  # the page's own host could not be reached
    denials: list[Denial] = field(default_factory=list)
    attempts: list[tuple[str, int]] = field(default_factory=list)  # every host:port tried


async def render(url: str, *, policy: AddressPolicy, resolver: Resolver) -> Rendered:
    """Load ``url`` in a fresh headless Chromium behind a fresh proxy; both are closed on
    return, on error and on cancellation."""
    async with FetchProxy(policy, resolver) as proxy, playwright_driver() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(resolve_executable()),
            headless=True,
            args=launch_args(FETCH_ARGS),
            proxy={
                "server": proxy.server_url,
                "username": proxy.username,
                "password": proxy.password,
                # Explicit, so an environment variable cannot drop Playwright's own default.
                "bypass": "<-loopback>",
            },
        )
        try:
            context = await browser.new_context(service_workers="block", accept_downloads=False)
            page = await context.new_page()
            await refuse_credentials(context, page, proxy.denials)
            rendered = await _visit(page, url)
        finally:
            await browser.close()
        rendered.denials = list(proxy.denials)
        rendered.attempts = list(proxy.attempts)
        rendered.main_denial = _for_the_page(rendered, proxy.denials)
        rendered.main_failure = _for_the_page(rendered, proxy.failures)
        return rendered


async def _visit(page: Page, url: str) -> Rendered:
    rendered = Rendered(url)
    navigations: list[str] = []

    def main_navigation(request: Request) -> bool:
        return request.is_navigation_request() and request.frame == page.main_frame

    def on_request(request: Request) -> None:
        if main_navigation(request):
            navigations.append(request.url)
            rendered.navigation_failed = False

    def on_response(response: Response) -> None:
        # The page may navigate itself after it loaded: the last navigation decides.
        if main_navigation(response.request):
            rendered.status = response.status
            rendered.refused = REFUSAL_HEADER in response.headers

    def on_failed(request: Request) -> None:
        if main_navigation(request):
            rendered.navigation_failed = True

    page.on("request", on_request)
    page.on("response", on_response)
    page.on("requestfailed", on_failed)
    try:
        await page.goto(url, wait_until="load", timeout=NAVIGATION_TIMEOUT_S * 1000)
    except PlaywrightTimeout as exc:
        rendered.error, rendered.timed_out = _first_line(exc), True
    except PlaywrightError as exc:
        rendered.error = _first_line(exc)
    if rendered.error is None or rendered.timed_out:
        try:
            await page.wait_for_load_state("networkidle", timeout=SETTLE_S * 1000)
        except PlaywrightError:
            pass  # a page that keeps polling is read as it stands
        rendered.snapshot = await _snapshot(page)
    rendered.final_url = navigations[-1] if navigations else url
    if rendered.error is None and not rendered.navigation_failed:
        rendered.final_url = page.url
    return rendered


async def _snapshot(page: Page) -> Snapshot | None:
    limits = {"title": MAX_TITLE_CHARS, "text": MAX_TEXT_CHARS, "html": MAX_HTML_CHARS}
    try:
        raw: dict[str, Any] = await page.evaluate(EXTRACT_JS, limits)
    except PlaywrightError:
        return None  # the page navigated away or crashed while being read
    return Snapshot(
        title=str(raw.get("title") or ""),
        text=str(raw.get("text") or ""),
        html=str(raw.get("html") or ""),
        password_fields=int(raw.get("passwordFields") or 0),
    )


def _for_the_page(rendered: Rendered, found: Sequence[_D]) -> _D | None:
    """The refusal (or failure) of the page's own last navigation, if there was one: an answer
    marked as the proxy's, or a failed navigation (a refused https tunnel), to its host."""
    if not (rendered.refused or rendered.navigation_failed or rendered.error is not None):
        return None
    parts = urlsplit(rendered.final_url)
    port = url_port(parts)
    if parts.hostname is None or port is None:
        return None
    for item in found:
        if item.host.strip("[]").lower() == parts.hostname.lower() and item.port == port:
            return item
    return None


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
