"""Session identity: the stable id of one agent conversation, supplied by its host."""

from __future__ import annotations

import os
import re

from oraculum.core.errors import ErrorCode, OracleError

SESSION_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@+=-]{0,127}$")
SESSION_ENV = "ORACULUM_SESSION"


def validate_session_id(value: str) -> str:
    if not isinstance(value, str) or not SESSION_ID_PATTERN.fullmatch(value):
        raise OracleError(
            ErrorCode.INVALID_SESSION_ID,
            "A session id is 1-128 characters: letters, digits and . _ : @ + = -, "
            "starting with a letter or digit.",
            rejected_value=value if isinstance(value, str) and len(value) <= 200 else None,
        )
    return value


def resolve_session_id(explicit: str | None, *, action: str, required: bool = True) -> str | None:
    """The session named explicitly, else by ``$ORACULUM_SESSION``.

    Submitting needs one so a wake-up can never reach the wrong conversation.
    """
    value = explicit if explicit else os.environ.get(SESSION_ENV) or None
    if value is None:
        if not required:
            return None
        raise OracleError(
            ErrorCode.PERSISTED_SESSION_REQUIRED,
            f"oraculum needs a session id to {action}.",
            suggested_next_step=f"Pass --session NAME or set {SESSION_ENV} (the MCP server and "
            "agent bridges supply one).",
        )
    return validate_session_id(value)
