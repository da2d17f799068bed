"""Provider-neutral page readiness: the states a chat page can be in, the blockers every
provider's page shows the same way (a challenge, an outage), and the wait loop that turns a
provider's classifier into "ready" or a precise failure.

A provider supplies its observation and classifier (from its own vocabulary), its failure
wording, and which states may linger before they count; the loop, the reload-once rule and the
error codes are the same for all.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol
from urllib.parse import urlsplit

from oraculum.core.errors import ErrorCode, OracleError

__all__ = [
    "BlockerVocabulary",
    "Classification",
    "PageState",
    "ReadinessRules",
    "blocker",
    "first_match",
    "origin_of",
    "page_waiter",
    "site_origins",
    "site_rules",
    "wait_until_ready",
]

POLL_S = 0.25
RELOAD_AFTER_S = 5.0
GIVE_UP_AFTER_S = 15.0


class PageState(StrEnum):
    READY = "ready"
    LOGIN_REQUIRED = "login_required"
    CHALLENGE_BLOCKING = "challenge_blocking"
    TRANSIENT_OUTAGE = "transient_outage_error"
    AUTH_TRANSITIONING = "auth_transitioning"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Classification:
    state: PageState
    reason: str
    evidence: str = ""
    wanted: str = ""  # what readiness looks for, when the page shows something else (evidence)


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def site_origins(real_origins: frozenset[str], chat_url: str) -> frozenset[str]:
    """Where a provider's page may be: its real site's origins and the configured chat URL's."""
    return frozenset({*real_origins, origin_of(chat_url)})


def first_match(text: str, patterns: tuple[re.Pattern[str], ...]) -> str | None:
    for pattern in patterns:
        found = pattern.search(text)
        if found:
            return found.group(0)
    return None


class BlockerVocabulary(Protocol):
    """The patterns a provider's vocabulary module defines for its blocking pages."""

    # Read-only members, so a module's fixed-length tuples satisfy them.
    @property
    def CHALLENGE_PATTERNS(self) -> tuple[re.Pattern[str], ...]: ...
    @property
    def CHALLENGE_SETTLING_PATTERNS(self) -> tuple[re.Pattern[str], ...]: ...
    @property
    def OUTAGE_PATTERNS(self) -> tuple[re.Pattern[str], ...]: ...


def blocker(text: str, name: str, vocab: BlockerVocabulary) -> Classification | None:
    """A challenge (unless it is visibly settling) or an outage page, named after the
    provider (``name``); None when the text shows neither."""
    seen = first_match(text, vocab.CHALLENGE_PATTERNS)
    if seen:
        if first_match(text, vocab.CHALLENGE_SETTLING_PATTERNS):
            return Classification(PageState.UNKNOWN, "The verification page is settling.")
        return Classification(
            PageState.CHALLENGE_BLOCKING, f"{name} is showing a challenge/verification page.", seen
        )
    seen = first_match(text, vocab.OUTAGE_PATTERNS)
    if seen:
        return Classification(
            PageState.TRANSIENT_OUTAGE, f"{name} is showing a transient outage/error page.", seen
        )
    return None


# What each blocking state fails with: (code, suggested next step).
Failures = Mapping[PageState, tuple[ErrorCode, str]]
OnFailure = Callable[[Classification], Awaitable[None]]


@dataclass(frozen=True)
class ReadinessRules:
    """One provider's readiness: its name, failure wording, and the states that may linger
    (reloaded once after ``RELOAD_AFTER_S``, failed after ``GIVE_UP_AFTER_S``)."""

    name: str
    failures: Failures
    lingering: frozenset[PageState] = frozenset({PageState.CHALLENGE_BLOCKING})


def site_rules(label: str, provider: str) -> ReadinessRules:
    """The readiness wording of a chat site whose seed `oraculum auth <provider>` signs in
    (Grok's, Gemini's)."""
    return ReadinessRules(
        name=label,
        failures={
            PageState.LOGIN_REQUIRED: (
                ErrorCode.AUTH_LOGIN_REQUIRED,
                f"Run `oraculum auth {provider}` to sign the {label} seed profile in again, then "
                "resubmit.",
            ),
            PageState.CHALLENGE_BLOCKING: (
                ErrorCode.PROVIDER_CHALLENGE,
                f"Open {label} in the auth browser (`oraculum auth {provider} --manual`), solve "
                "the check, retry.",
            ),
            PageState.TRANSIENT_OUTAGE: (
                ErrorCode.PROVIDER_OUTAGE,
                f"{label} is having trouble; retry later.",
            ),
        },
    )


class _Poll:
    """The bookkeeping of one wait: when each state was first seen, which were reloaded."""

    def __init__(self) -> None:
        self.first_seen: dict[PageState, float] = {}
        self.reloaded: set[PageState] = set()

    def since(self, state: PageState) -> float:
        now = time.monotonic()
        return now - self.first_seen.setdefault(state, now)

    def reload_once(self, state: PageState) -> bool:
        if state in self.reloaded:
            return False
        self.reloaded.add(state)
        return True


async def wait_until_ready(
    read: Callable[[], Awaitable[Classification]],
    reload: Callable[[], Awaitable[object]],
    rules: ReadinessRules,
    *,
    timeout_s: float,
    on_failure: OnFailure,
    log: Callable[[str], None],
    clear_obstacles: Callable[[], Awaitable[object]] | None = None,
) -> None:
    """Poll ``read`` until the page is ready. One reload is allowed for an outage, and one for
    a lingering state; a login page fails at once; what persists fails. A page not ready yet
    may only be covered: ``clear_obstacles`` clears it (or fails `page_obstructed`)."""
    started = time.monotonic()
    poll = _Poll()
    last: Classification | None = None
    while time.monotonic() - started < timeout_s:
        try:
            last = await read()
        except Exception as exc:  # a navigation mid-read: look again
            log(f"page not readable yet: {exc}")
            await asyncio.sleep(POLL_S)
            continue
        if last.state == PageState.READY:
            return
        if last.state == PageState.UNKNOWN and clear_obstacles is not None:
            try:
                await clear_obstacles()
            except OracleError:
                raise  # page_obstructed: covered by what nothing safe clears
            except Exception as exc:  # a navigation mid-read: look again
                log(f"page not readable for obstacles yet: {exc}")
        await _step(last, poll, reload, rules, on_failure, log)
        await asyncio.sleep(POLL_S)
    if last is not None and last.state != PageState.UNKNOWN:
        await _fail(last, rules, on_failure)  # what the page kept showing is the reason
    await on_failure(last or Classification(PageState.UNKNOWN, "no reading"))
    found = (last.wanted, last.evidence or "nothing") if last and last.wanted else None
    raise OracleError(
        ErrorCode.PROVIDER_NOT_READY,
        f"Timed out waiting for the {rules.name} chat UI to become ready"
        + (f" (last state: {last.state}: {last.reason})" if last else ".")
        + (f" Wanted {found[0]}; found: {found[1]}." if found else ""),
        details={"wanted": found[0], "observed": found[1]} if found else None,
        retryable=True,
        suggested_next_step="Check the diagnostics in the job's logs directory.",
    )


class ObservablePage(Protocol):
    page: Any  # the Playwright page (reloaded once when a state lingers)
    obstacles: Any  # its obstacle layer (`providers.obstacle_guard.ObstacleGuard`)

    async def observe(self) -> Any: ...


def page_waiter(
    classify: Callable[[Any, frozenset[str]], Classification], rules: ReadinessRules
) -> Callable[..., Awaitable[None]]:
    """A provider's ``wait_until_ready(view, origins, *, timeout_s, on_failure, log)``: its
    observation read through its classifier, under its rules."""

    async def wait(
        view: ObservablePage,
        origins: frozenset[str],
        *,
        timeout_s: float,
        on_failure: OnFailure,
        log: Callable[[str], None],
    ) -> None:
        async def read() -> Classification:
            return classify(await view.observe(), origins)

        async def clear() -> None:
            await view.obstacles.clear(None, "the composer")

        await wait_until_ready(
            read,
            view.page.reload,
            rules,
            timeout_s=timeout_s,
            on_failure=on_failure,
            log=log,
            clear_obstacles=clear,
        )

    return wait


async def _step(
    last: Classification,
    poll: _Poll,
    reload: Callable[[], Awaitable[object]],
    rules: ReadinessRules,
    on_failure: OnFailure,
    log: Callable[[str], None],
) -> None:
    """React to one not-ready reading: reload once, keep waiting, or fail."""
    since = poll.since(last.state)
    if last.state == PageState.TRANSIENT_OUTAGE and poll.reload_once(last.state):
        log(f"{last.reason} ({last.evidence}); reloading once")
        await reload()
    elif last.state in rules.lingering:
        if since >= GIVE_UP_AFTER_S:
            await _fail(last, rules, on_failure)
        if since >= RELOAD_AFTER_S and poll.reload_once(last.state):
            log(f"{last.reason}; reloading once")
            await reload()
    elif last.state != PageState.UNKNOWN:
        await _fail(last, rules, on_failure)


async def _fail(state: Classification, rules: ReadinessRules, on_failure: OnFailure) -> None:
    await on_failure(state)
    code, step = rules.failures.get(state.state, (ErrorCode.PROVIDER_NOT_READY, "Retry later."))
    evidence = f" ({state.evidence})" if state.evidence else ""
    raise OracleError(
        code,
        f"{state.reason}{evidence} {step}",
        suggested_next_step=step,
        retryable=state.state == PageState.TRANSIENT_OUTAGE,
    )
