"""Wait until the Grok page is ready for a prompt, or fail fast with the same codes as ChatGPT
(the loop is `providers.readiness`; this module holds Grok's wording)."""

from __future__ import annotations

from oraculum.core.errors import ErrorCode
from oraculum.providers import readiness
from oraculum.providers.grok.page_state import PageState, classify

__all__ = ["RULES", "wait_until_ready"]

RULES = readiness.ReadinessRules(
    name="Grok",
    failures={
        PageState.LOGIN_REQUIRED: (
            ErrorCode.AUTH_LOGIN_REQUIRED,
            "Run `oraculum auth grok` to sign the Grok seed profile in again, then resubmit.",
        ),
        PageState.CHALLENGE_BLOCKING: (
            ErrorCode.PROVIDER_CHALLENGE,
            "Open Grok in the auth browser (`oraculum auth grok --manual`), solve the check, "
            "retry.",
        ),
        PageState.TRANSIENT_OUTAGE: (
            ErrorCode.PROVIDER_OUTAGE,
            "Grok is having trouble; retry later.",
        ),
    },
)


wait_until_ready = readiness.page_waiter(classify, RULES)
