"""Providers: the browser flows for ChatGPT and Grok, behind one small interface."""

from __future__ import annotations

from oraculum.core.errors import OracleError
from oraculum.providers.base import Provider


def get_provider(name: str) -> Provider:
    """The provider implementation a worker runs for a job's ``provider`` field."""
    if name == "chatgpt":
        from oraculum.providers.chatgpt.provider import ChatGPTProvider

        return ChatGPTProvider()
    if name == "test":
        from oraculum.providers.testing import TestProvider

        return TestProvider()
    raise OracleError(
        "provider_unavailable",
        f"The {name} browser flow is not available in this version of oraculum.",
        rejected_value=name,
        suggested_next_step="Upgrade oraculum.",
    )
