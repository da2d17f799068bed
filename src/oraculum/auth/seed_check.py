"""A cheap look at a seed profile without a browser: does its cookie store hold an unexpired
session cookie of the provider? Reads cookie names only (they are stored unencrypted)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from urllib.parse import urlsplit

from oraculum.auth.cookie_source import stored_cookie_names
from oraculum.auth.policy import is_session_cookie, policy_for
from oraculum.core.errors import OracleError


def seed_session_problem(seed: Path, provider: str, chat_url: str) -> OracleError | None:
    """None if ``seed`` holds a session; else `auth_seed_profile_unreadable` (a cookie store
    that cannot be read) or `auth_seed_profile_unauthenticated` (no session cookie)."""
    policy = policy_for(provider, chat_url)
    chat_host = (urlsplit(chat_url).hostname or "").lower()
    step = f"Run `oraculum auth {policy.provider}` (oracle_auth) to sign in, then retry."
    try:
        stored = stored_cookie_names(seed, time.time())
    except (sqlite3.Error, OSError) as exc:
        return OracleError(
            "auth_seed_profile_unreadable",
            f"The seed profile's cookie store cannot be read: {seed} ({exc})",
            rejected_value=str(seed),
            suggested_next_step=step,
        )
    for name, host in stored:
        domain = host.lstrip(".").lower()
        if is_session_cookie(name, policy) and (domain in policy.domains or domain == chat_host):
            return None
    return OracleError(
        "auth_seed_profile_unauthenticated",
        f"The seed profile holds no {policy.label} session: {seed}",
        rejected_value=str(seed),
        suggested_next_step=step,
    )
