"""`auth`: refresh the signed-in seed profile. The auth flow lands with its own issue; until
then this refuses with a clear, stable code."""

from __future__ import annotations

from typing import Any

from oraculum.core.errors import OracleError
from oraculum.core.presets import normalize_provider


def auth(provider: str | None = None) -> dict[str, Any]:
    name = normalize_provider(provider) if provider is not None else "chatgpt"
    raise OracleError(
        "auth_unavailable",
        f"Signing in to {name} is not available in this version of oraculum yet.",
        rejected_value=name,
        suggested_next_step="Use --provider test for a dry run; the auth command arrives with "
        "the browser flow.",
    )
