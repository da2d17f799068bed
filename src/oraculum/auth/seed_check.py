"""A cheap look at a seed profile without a browser: does its cookie store hold an unexpired
session cookie of the provider? Reads cookie names only (they are stored unencrypted).

The managed browser has no seed, but the same question applies to it: a running keeper is asked
for its live cookies over DevTools (its cookie file lags a sign-in by up to half a minute), a
stopped one is read from its profile's store."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from urllib.parse import urlsplit

from oraculum.auth.cookie_source import stored_cookie_names
from oraculum.auth.policy import is_session_cookie, policy_for
from oraculum.core.config import Config, provider_urls
from oraculum.core.errors import ErrorCode, OracleError


def seed_session_problem(seed: Path, provider: str, chat_url: str) -> OracleError | None:
    """None if ``seed`` holds a session; else `auth_seed_profile_unreadable` (a cookie store
    that cannot be read) or `auth_seed_profile_unauthenticated` (no session cookie)."""
    policy = policy_for(provider, chat_url)
    step = f"Run `oraculum auth {policy.provider}` (oracle_auth) to sign in, then retry."
    try:
        stored = stored_cookie_names(seed, time.time())
    except (sqlite3.Error, OSError) as exc:
        return OracleError(
            ErrorCode.AUTH_SEED_PROFILE_UNREADABLE,
            f"The seed profile's cookie store cannot be read: {seed} ({exc})",
            rejected_value=str(seed),
            suggested_next_step=step,
        )
    if holds_session(stored, provider, chat_url):
        return None
    return OracleError(
        ErrorCode.AUTH_SEED_PROFILE_UNAUTHENTICATED,
        f"The seed profile holds no {policy.label} session: {seed}",
        rejected_value=str(seed),
        suggested_next_step=step,
    )


def holds_session(cookies: list[tuple[str, str]], provider: str, chat_url: str) -> bool:
    """Whether (name, host) pairs hold an unexpired session cookie of ``provider``."""
    policy = policy_for(provider, chat_url)
    chat_host = (urlsplit(chat_url).hostname or "").lower()
    for name, host in cookies:
        domain = host.lstrip(".").lower()
        if is_session_cookie(name, policy) and (domain in policy.domains or domain == chat_host):
            return True
    return False


async def managed_session_problem(config: Config, provider: str) -> OracleError | None:
    """None when the managed browser holds ``provider``'s session (running or not); else why
    a job on it would fail: not running with start-on-demand off, or not signed in."""
    from oraculum.browser import cdp, keeper

    chat_url, _ = provider_urls(config, provider)
    record = keeper.read_record()
    if record is not None and keeper.keeper_alive(record):
        endpoint = await keeper.prove_keeper(record)
        try:
            found = await cdp.call(endpoint.ws_url, "Storage.getCookies")
        except cdp.CdpError as exc:
            raise keeper.not_running(str(exc)) from exc
        cookies = [(str(c.get("name")), str(c.get("domain"))) for c in found.get("cookies", [])]
    elif not config.browser.managed.start_on_demand:
        return keeper.not_running("browser.managed.startOnDemand is off")
    else:
        try:
            cookies = stored_cookie_names(keeper.profile_dir(), time.time())
        except (sqlite3.Error, OSError):
            cookies = []
    if holds_session(cookies, provider, chat_url):
        return None
    label = policy_for(provider, chat_url).label
    return OracleError(
        ErrorCode.MANAGED_BROWSER_SIGNED_OUT,
        f"The managed browser is not signed in to {label}.",
        suggested_next_step="Run `oraculum browser login` and sign in there, then retry.",
    )
