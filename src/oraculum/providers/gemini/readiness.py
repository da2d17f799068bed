"""Wait until the Gemini page is ready for a prompt, or fail fast with the same codes as ChatGPT
(the loop is `providers.readiness`; this module holds Gemini's wording)."""

from __future__ import annotations

from oraculum.core.errors import ErrorCode
from oraculum.providers import readiness
from oraculum.providers.gemini.page_state import PageState, classify

__all__ = ["RULES", "wait_until_ready"]

RULES = readiness.ReadinessRules(
    name="Gemini",
    failures={
        PageState.LOGIN_REQUIRED: (
            ErrorCode.AUTH_LOGIN_REQUIRED,
            "Run `oraculum auth gemini` to sign the Gemini seed profile in again, then resubmit.",
        ),
        PageState.CHALLENGE_BLOCKING: (
            ErrorCode.PROVIDER_CHALLENGE,
            "Open Gemini in the auth browser (`oraculum auth gemini --manual`), solve the check, "
            "retry.",
        ),
        PageState.TRANSIENT_OUTAGE: (
            ErrorCode.PROVIDER_OUTAGE,
            "Gemini is having trouble; retry later.",
        ),
    },
)


wait_until_ready = readiness.page_waiter(classify, RULES)
