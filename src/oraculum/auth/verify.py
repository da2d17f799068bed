"""Is the staged profile signed in? The provider's readiness checks plus the identity probe.

ChatGPT reuses the job driver's page classifier with one auth-only rule in front: a page that
refuses the request headers (HTTP 431, "request header or cookie too large") means the imported
cookies are stale, i.e. sign in again. Grok has no page driver yet, so its check is the session
cookie surviving a load of grok.com without a challenge.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from playwright.async_api import BrowserContext, Page

from oraculum.auth.policy import CookiePolicy, is_session_cookie
from oraculum.core.errors import OracleError
from oraculum.providers.chatgpt import vocabulary as vocab
from oraculum.providers.chatgpt.page import ChatGPTPage
from oraculum.providers.chatgpt.page_state import (
    Classification,
    PageObservation,
    PageState,
    allowed_origins,
    classify,
    origin_of,
)

TRANSITION_RELOAD_S = 5.0
TRANSITION_GIVE_UP_S = 20.0
SETTLE_S = 1.5


def _first(text: str, patterns: tuple[re.Pattern[str], ...]) -> str | None:
    for pattern in patterns:
        found = pattern.search(text)
        if found:
            return found.group(0)
    return None


def auth_page_state(observation: PageObservation, origins: frozenset[str]) -> Classification:
    """The job classifier, after the auth-only rule: a challenge still wins, then a refused
    cookie header is a login problem (never an outage to wait out)."""
    text = observation.scoped_text
    if _first(text, vocab.CHALLENGE_PATTERNS) is None:
        refused = _first(text, vocab.COOKIE_REJECTED_PATTERNS)
        if refused:
            return Classification(
                PageState.LOGIN_REQUIRED,
                "ChatGPT refused the request headers: the cookies are too large or stale.",
                refused,
            )
    return classify(observation, origins)


class ChallengeShown(Exception):
    """The provider wants a human check; the caller leaves the browser to the user."""

    def __init__(self, reason: str, url: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.url = url


@dataclass(frozen=True)
class Verified:
    reason: str
    url: str
    identity: str | None  # the account's email (or name) from the identity probe


IDENTITY_PROBE = """async (path) => {
  try {
    const r = await fetch(path, { credentials: "include", cache: "no-store" });
    let body = {};
    try { body = await r.json(); } catch (e) {}
    const email = typeof body.email === "string" && body.email.includes("@") ? body.email : null;
    const name = typeof body.name === "string" ? body.name : null;
    return { status: r.status, identity: email || name };
  } catch (e) { return { status: 0, identity: null }; }
}"""


async def identity_of(page: Page) -> tuple[int, str | None]:
    found = await page.evaluate(IDENTITY_PROBE, vocab.ME_ENDPOINT)
    return int(found.get("status") or 0), found.get("identity")


Log = Callable[[str], None]
Capture = Callable[[Page], Awaitable[None]]


async def verify_chatgpt(
    page: Page,
    chat_url: str,
    auth_url: str,
    *,
    manual: bool,
    timeout_s: float,
    poll_s: float,
    log: Log,
    capture: Capture,
) -> Verified:
    """Poll the page until it is ready. Imported cookies either work or fail fast; a person
    signing in by hand is waited for (never navigated away from the form) until the timeout."""
    origins = allowed_origins(chat_url, auth_url)
    chat = ChatGPTPage(page)
    started = time.monotonic()
    first_seen: dict[PageState, float] = {}
    nudged: set[str] = set()
    last: Classification | None = None
    while time.monotonic() - started < timeout_s:
        if page.is_closed():
            raise OracleError(
                "auth_browser_closed",
                "The auth browser window was closed before sign-in finished.",
                suggested_next_step="Run `oraculum auth` again and leave the window open.",
            )
        try:
            observation = await chat.observe()
        except Exception as exc:  # mid-navigation, or the person is clicking through
            log(f"page not readable yet: {str(exc).splitlines()[0] if str(exc) else exc}")
            await asyncio.sleep(poll_s)
            continue
        state = auth_page_state(observation, origins)
        if last is None or state.state != last.state:
            log(f"page state: {state.state} — {state.reason} ({observation.url})")
            await capture(page)
        last = state
        now = time.monotonic()
        since = now - first_seen.setdefault(state.state, now)
        if state.state == PageState.READY:
            status, identity = await identity_of(page)
            if status == 200:
                return Verified(state.reason, page.url, identity)
            log(f"identity probe answered {status}; looking again")
        elif manual:
            pass  # a person is at the window: they sign in and solve checks; only watch
        elif state.state == PageState.CHALLENGE_BLOCKING:
            evidence = f" ({state.evidence})" if state.evidence else ""
            raise ChallengeShown(state.reason + evidence, page.url)
        elif state.state == PageState.LOGIN_REQUIRED:
            raise OracleError(
                "auth_login_required",
                f"The imported cookies did not sign the isolated profile in: {state.reason}"
                + (f" ({state.evidence})" if state.evidence else ""),
                suggested_next_step="Sign in to the provider in that browser (or run "
                "`oraculum auth --manual`), then run `oraculum auth` again.",
            )
        elif state.state == PageState.TRANSIENT_OUTAGE and "outage" not in nudged:
            nudged.add("outage")
            log("transient outage: reloading once")
            await page.reload()
            await asyncio.sleep(SETTLE_S)
        elif state.state == PageState.AUTH_TRANSITIONING:
            await _nudge_transition(page, chat_url, auth_url, observation, since, nudged, log)
        await asyncio.sleep(poll_s)
    raise OracleError(
        "auth_timeout",
        f"Timed out after {timeout_s:.0f} s verifying the sign-in in the isolated profile"
        + (f" (last state: {last.state}: {last.reason})." if last else "."),
        retryable=True,
        suggested_next_step="Look at the diagnostics, then run `oraculum auth` again.",
    )


async def _nudge_transition(
    page: Page,
    chat_url: str,
    auth_url: str,
    observation: PageObservation,
    since: float,
    nudged: set[str],
    log: Log,
) -> None:
    """The backend knows the session but the UI still looks public: open the sign-in URL once
    (it finishes the redirect), reload once after 5 s, give up after 20 s."""
    if since >= TRANSITION_GIVE_UP_S:
        raise OracleError(
            "auth_login_required",
            "ChatGPT accepted the session cookies but never left the public-looking page.",
            suggested_next_step="Run `oraculum auth --manual` and sign in by hand.",
        )
    if "auth_url" not in nudged and observation.me_identity:
        nudged.add("auth_url")
        log(f"half signed in: opening {auth_url}")
        await page.goto(auth_url)
        await asyncio.sleep(SETTLE_S)
    elif since >= TRANSITION_RELOAD_S and "reload" not in nudged:
        nudged.add("reload")
        log("still half signed in: reloading once")
        await page.goto(chat_url)


async def verify_by_cookie(
    context: BrowserContext,
    page: Page,
    policy: CookiePolicy,
    *,
    manual: bool,
    timeout_s: float,
    poll_s: float,
    log: Log,
    capture: Capture,
) -> Verified:
    """For providers without a page driver: the session cookie is there after a page load and
    the page is not a challenge."""
    started = time.monotonic()
    captured = False
    while time.monotonic() - started < timeout_s:
        if page.is_closed():
            raise OracleError("auth_browser_closed", "The auth browser window was closed.")
        try:
            text = await page.inner_text("body")
        except Exception:
            text = ""
        if not manual and _first(text, vocab.CHALLENGE_PATTERNS):
            await capture(page)
            raise ChallengeShown(f"{policy.label} is showing a verification page.", page.url)
        names = [c.get("name", "") for c in await context.cookies()]
        if any(is_session_cookie(name, policy) for name in names):
            await capture(page)
            return Verified(f"{policy.label} session cookie present.", page.url, None)
        if not captured:
            await capture(page)
            captured = True
        if not manual:
            raise OracleError(
                "auth_login_required",
                f"{policy.label} dropped the imported session cookie on {origin_of(page.url)}.",
                suggested_next_step="Sign in again in your browser, then rerun `oraculum auth`.",
            )
        await asyncio.sleep(poll_s)
    raise OracleError(
        "auth_timeout",
        f"Timed out after {timeout_s:.0f} s waiting for the {policy.label} sign-in.",
        retryable=True,
    )
