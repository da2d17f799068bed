"""Wait until the ChatGPT page is ready for a prompt, or fail with the precise reason (the loop
is `providers.readiness`; this module holds ChatGPT's wording)."""

from __future__ import annotations

from oraculum.core.errors import ErrorCode
from oraculum.providers import readiness
from oraculum.providers.chatgpt.page_state import PageState, classify

__all__ = ["RULES", "wait_until_ready"]

RULES = readiness.ReadinessRules(
    name="ChatGPT",
    failures={
        PageState.LOGIN_REQUIRED: (
            ErrorCode.AUTH_LOGIN_REQUIRED,
            "Run `oraculum auth` to sign the seed profile in again, then resubmit.",
        ),
        PageState.CHALLENGE_BLOCKING: (
            ErrorCode.PROVIDER_CHALLENGE,
            "Open ChatGPT in the auth browser (`oraculum auth --manual`), solve the check, retry.",
        ),
        PageState.TRANSIENT_OUTAGE: (
            ErrorCode.PROVIDER_OUTAGE,
            "ChatGPT is having trouble or rate-limiting; retry later.",
        ),
        PageState.AUTH_TRANSITIONING: (
            ErrorCode.AUTH_LOGIN_REQUIRED,
            "The session is half signed in; run `oraculum auth`, then resubmit.",
        ),
    },
    # A challenge or a half-finished sign-in may clear by itself: reloaded once, then failed.
    lingering=frozenset({PageState.CHALLENGE_BLOCKING, PageState.AUTH_TRANSITIONING}),
)


wait_until_ready = readiness.page_waiter(classify, RULES)
