"""Providers: the browser flows for ChatGPT, Grok and Gemini, behind one small interface.

Which flow a provider runs is its registry entry's ``driver`` (`oraculum.core.providers`)."""

from __future__ import annotations

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.providers import provider_spec
from oraculum.providers.base import Provider

# What a provider author touches: `base` (the interfaces), `browser_job` (the shared browser
# lifecycle) and a package of its own; `testing` is the dry-run driver the registry names.
__all__ = [
    "Provider",
    "base",
    "browser_job",
    "chatgpt",
    "gemini",
    "get_provider",
    "grok",
    "testing",
]


def get_provider(name: str) -> Provider:
    """The provider implementation a worker runs for a job's ``provider`` field."""
    spec = provider_spec(name)
    try:
        driver: Provider = spec.load_driver()
    except ModuleNotFoundError:
        raise OracleError(
            ErrorCode.PROVIDER_UNAVAILABLE,
            f"The {spec.label} browser flow is not available in this version of oraculum.",
            rejected_value=name,
            suggested_next_step="Upgrade oraculum.",
        ) from None
    return driver
