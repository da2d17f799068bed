"""Is the staged profile signed in? The provider's page driver decides, plus ChatGPT's identity
probe.

Each provider has a page check (named by its registry entry's ``sign_in_check``): how to read
and classify its page with the job driver's own classifier, how to confirm a ready page, and how
to nudge a half-finished sign-in. ``verify_signed_in`` is the one polling loop for all of them.
ChatGPT's check puts one auth-only rule in front of its classifier: a page that refuses the
request headers (HTTP 431, "request header or cookie too large") means the imported cookies are
stale, i.e. sign in again. Grok's check is the Grok driver's classifier: its composer must be
ready, so an `sso` cookie the site no longer honours (a page with Sign in) fails as a login
problem.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

from playwright.async_api import Page

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.providers import REGISTRY, load_named, provider_spec
from oraculum.providers.chatgpt import vocabulary as vocab
from oraculum.providers.chatgpt.page import ChatGPTPage
from oraculum.providers.chatgpt.page_state import (
    Classification,
    PageObservation,
    PageState,
    allowed_origins,
    classify,
)
from oraculum.providers.gemini import page_state as gemini_state
from oraculum.providers.gemini.page import GeminiPage
from oraculum.providers.grok import page_state as grok_state
from oraculum.providers.grok.page import GrokPage

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


def auth_command(provider: str) -> str:
    """The command that signs ``provider`` in (ChatGPT is the default: it needs no name)."""
    return "oraculum auth" if provider == "chatgpt" else f"oraculum auth {provider}"


Log = Callable[[str], None]
Capture = Callable[[Page], Awaitable[None]]


class PageCheck(Protocol):
    """One provider's reading of the auth page, through its job driver."""

    label: str
    command: str  # the `oraculum auth …` command that signs this provider in

    async def read(self) -> tuple[Classification, str]:
        """The page's state and the URL it was read at (raises while navigating)."""
        ...

    async def confirm(self, ready: Classification, log: Log) -> Verified | None:
        """A page classified ready: the verified sign-in, or None to look again."""
        ...

    async def transition(self, since: float, nudged: set[str], log: Log) -> None:
        """The page is half signed in (for ``since`` seconds): nudge it along or give up."""
        ...


@dataclass
class ChatGPTCheck:
    page: Page
    chat_url: str
    auth_url: str
    label: str = "ChatGPT"
    command: str = auth_command("chatgpt")
    last: PageObservation | None = field(default=None, init=False)

    async def read(self) -> tuple[Classification, str]:
        self.last = await ChatGPTPage(self.page).observe()
        origins = allowed_origins(self.chat_url, self.auth_url)
        return auth_page_state(self.last, origins), self.last.url

    async def confirm(self, ready: Classification, log: Log) -> Verified | None:
        status, identity = await ChatGPTPage(self.page).identity()
        if status == 200:
            return Verified(ready.reason, self.page.url, identity)
        log(f"identity probe answered {status}; looking again")
        return None

    async def transition(self, since: float, nudged: set[str], log: Log) -> None:
        await _nudge_transition(self, since, nudged, log)


@dataclass
class GrokCheck:
    page: Page
    chat_url: str
    auth_url: str  # Grok signs in from its chat page: the same URL
    label: str = "Grok"
    command: str = auth_command("grok")

    async def read(self) -> tuple[Classification, str]:
        observation = await GrokPage(self.page).observe()
        origins = grok_state.allowed_origins(self.chat_url)
        return grok_state.classify(observation, origins), observation.url

    async def confirm(self, ready: Classification, log: Log) -> Verified | None:
        # Grok has no identity endpoint: a ready composer (no Sign in control) is the proof.
        return Verified(ready.reason, self.page.url, None)

    async def transition(self, since: float, nudged: set[str], log: Log) -> None:
        return None  # Grok's classifier has no half-signed-in state


@dataclass
class GeminiCheck:
    page: Page
    chat_url: str
    auth_url: str  # Gemini signs in from its app page (a Google account): the same URL
    label: str = "Gemini"
    command: str = auth_command("gemini")

    async def read(self) -> tuple[Classification, str]:
        observation = await GeminiPage(self.page).observe()
        origins = gemini_state.allowed_origins(self.chat_url)
        return gemini_state.classify(observation, origins), observation.url

    async def confirm(self, ready: Classification, log: Log) -> Verified | None:
        # Ready means the Google Account marker shows beside a working composer (facts §1.2).
        return Verified(ready.reason, self.page.url, None)

    async def transition(self, since: float, nudged: set[str], log: Log) -> None:
        return None  # Gemini's classifier has no half-signed-in state


PageCheckFactory = Callable[[Page, str, str], PageCheck]


def page_check(provider: str, page: Page, chat_url: str, auth_url: str) -> PageCheck:
    """The provider's page check, named by its registry entry (`sign_in_check`)."""
    spec = provider_spec(provider)
    if spec.sign_in_check is None:
        raise OracleError(
            ErrorCode.INVALID_PROVIDER,
            f"oraculum cannot verify a sign-in to {provider}.",
            rejected_value=provider,
            allowed_values=[s.name for s in REGISTRY.values() if s.sign_in_check],
        )
    factory: PageCheckFactory = load_named(spec.sign_in_check)
    return factory(page, chat_url, auth_url)


async def verify_signed_in(
    page: Page,
    check: PageCheck,
    *,
    manual: bool,
    timeout_s: float,
    poll_s: float,
    log: Log,
    capture: Capture,
) -> Verified:
    """Poll the page until it is ready. Imported cookies either work or fail fast; a person
    signing in by hand is waited for (never navigated away from the form) until the timeout."""
    started = time.monotonic()
    first_seen: dict[PageState, float] = {}
    nudged: set[str] = set()
    last: Classification | None = None
    while time.monotonic() - started < timeout_s:
        if page.is_closed():
            raise OracleError(
                ErrorCode.AUTH_BROWSER_CLOSED,
                "The auth browser window was closed before sign-in finished.",
                suggested_next_step=f"Run `{check.command}` again and leave the window open.",
            )
        try:
            state, url = await check.read()
        except Exception as exc:  # mid-navigation, or the person is clicking through
            log(f"page not readable yet: {str(exc).splitlines()[0] if str(exc) else exc}")
            await asyncio.sleep(poll_s)
            continue
        if last is None or state.state != last.state:
            log(f"page state: {state.state} — {state.reason} ({url})")
            await capture(page)
        last = state
        now = time.monotonic()
        since = now - first_seen.setdefault(state.state, now)
        if state.state == PageState.READY:
            verified = await check.confirm(state, log)
            if verified is not None:
                return verified
        elif manual:
            pass  # a person is at the window: they sign in and solve checks; only watch
        else:
            await _act_on(page, check, state, since, nudged, log)
        await asyncio.sleep(poll_s)
    raise OracleError(
        ErrorCode.AUTH_TIMEOUT,
        f"Timed out after {timeout_s:.0f} s verifying the {check.label} sign-in in the isolated "
        "profile" + (f" (last state: {last.state}: {last.reason})." if last else "."),
        retryable=True,
        suggested_next_step=f"Look at the diagnostics, then run `{check.command}` again.",
    )


async def _act_on(
    page: Page,
    check: PageCheck,
    state: Classification,
    since: float,
    nudged: set[str],
    log: Log,
) -> None:
    """What an imported sign-in does about a page that is not ready (no person is watching)."""
    evidence = f" ({state.evidence})" if state.evidence else ""
    if state.state == PageState.CHALLENGE_BLOCKING:
        raise ChallengeShown(state.reason + evidence, page.url)
    if state.state == PageState.LOGIN_REQUIRED:
        raise OracleError(
            ErrorCode.AUTH_LOGIN_REQUIRED,
            f"The imported cookies did not sign the isolated profile in: {state.reason}" + evidence,
            suggested_next_step=f"Sign in to {check.label} in that browser (or run "
            f"`{check.command} --manual`), then run `{check.command}` again.",
        )
    if state.state == PageState.TRANSIENT_OUTAGE and "outage" not in nudged:
        nudged.add("outage")
        log("transient outage: reloading once")
        await page.reload()
        await asyncio.sleep(SETTLE_S)
    elif state.state == PageState.AUTH_TRANSITIONING:
        await check.transition(since, nudged, log)


async def _nudge_transition(check: ChatGPTCheck, since: float, nudged: set[str], log: Log) -> None:
    """The backend knows the session but the UI still looks public: open the sign-in URL once
    (it finishes the redirect), reload once after 5 s, give up after 20 s."""
    if since >= TRANSITION_GIVE_UP_S:
        raise OracleError(
            ErrorCode.AUTH_LOGIN_REQUIRED,
            "ChatGPT accepted the session cookies but never left the public-looking page.",
            suggested_next_step="Run `oraculum auth --manual` and sign in by hand.",
        )
    if "auth_url" not in nudged and check.last is not None and check.last.me_identity:
        nudged.add("auth_url")
        log(f"half signed in: opening {check.auth_url}")
        await check.page.goto(check.auth_url)
        await asyncio.sleep(SETTLE_S)
    elif since >= TRANSITION_RELOAD_S and "reload" not in nudged:
        nudged.add("reload")
        log("still half signed in: reloading once")
        await check.page.goto(check.chat_url)
