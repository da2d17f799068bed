"""`oraculum auth`: build (or repair) a provider's signed-in seed profile.

Under the global auth lock: sweep old staging directories; import the provider's cookies from
the user's browser (read-only, filtered by the cookie policy) or open a browser on the login
page for a person to sign in; verify in a staged profile; close the browser so Chromium writes
its cookie store; swap the staged profile in atomically, keeping `.prev`. A challenge page
leaves the staged profile open in a browser for the user and is picked up by the next run.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from playwright.async_api import BrowserContext, Page

from oraculum.auth import seed as seeds
from oraculum.auth.cookie_source import (
    CookieSource,
    read_cookies,
    resolve_source,
    scrub_password_variables,
)
from oraculum.auth.policy import CookiePolicy, PolicyResult, apply_policy, policy_for
from oraculum.auth.result import AuthResult, SignIn
from oraculum.auth.run_log import AuthRunLog
from oraculum.auth.seed_check import seed_session_problem
from oraculum.auth.verify import (
    ChallengeShown,
    Verified,
    auth_command,
    page_check,
    verify_signed_in,
)
from oraculum.browser.session import LaunchOptions, browser_on_profile
from oraculum.core.config import Config, provider_urls, seed_profile_dir
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.fsio import ensure_private_dir
from oraculum.core.presets import CHATGPT, normalize_provider
from oraculum.core.process_group import spawn_group
from oraculum.jobs.locks import named_lock

AUTH_LOCK_TIMEOUT_S = 600.0
COOKIE_READ_TIMEOUT_S = 30.0
# Set to 1 to run the sign-in browser headless (tests, CI); manual sign-in then needs another
# way to reach the page, as the tests do through `watch`.
HEADLESS_ENV = "ORACULUM_AUTH_HEADLESS"

Mode = Literal["import", "manual"]
# A coroutine function, not any awaitable: it runs as a task beside the sign-in.
Watch = Callable[[BrowserContext, Page], Coroutine[Any, Any, Any]]


@dataclass(frozen=True)
class AuthRequest:
    provider: str = CHATGPT
    manual: bool = False
    from_browser: str | None = None
    headed: bool | None = None  # None: headed when a display exists, unless HEADLESS_ENV
    watch: Watch | None = None  # called with the auth browser once its page is open
    progress: Callable[[str], None] | None = None
    home: Path | None = None  # where to look for local browser profiles (default: ~)


def display_available() -> bool:
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def forced_headless(request: AuthRequest) -> bool:
    if request.headed is not None:
        return not request.headed
    return os.environ.get(HEADLESS_ENV, "").strip().lower() in ("1", "true", "yes")


def want_headed(request: AuthRequest) -> bool:
    """Headed whenever there is a screen (a challenge can then be solved in place)."""
    if request.headed is not None:
        return request.headed
    return not forced_headless(request) and display_available()


def _with_diagnostics(error: OracleError, run: AuthRunLog) -> OracleError:
    error.message = f"{error.message} Diagnostics: {run.dir}"
    error.details = {**error.details, "diagnosticsDir": str(run.dir), "log": str(run.path)}
    return error


async def run_auth(config: Config, request: AuthRequest) -> AuthResult:
    # First of all, before any browser, keyring helper or other child process can inherit them.
    scrubbed = scrub_password_variables()
    run = AuthRunLog(request.progress)
    run.say(f"Diagnostics: {run.dir}")
    if scrubbed:
        run.log("removed keyring password variables from the environment: " + ", ".join(scrubbed))
    try:
        with named_lock("auth", timeout=AUTH_LOCK_TIMEOUT_S):
            return await _locked(config, request, run)
    except OracleError as error:
        run.log(f"failed: [{error.code}] {error.message}")
        raise _with_diagnostics(error, run) from None
    except Exception as exc:
        run.log(f"failed: {type(exc).__name__}: {exc}")
        first_line = str(exc).splitlines()[0] if str(exc) else ""
        raise _with_diagnostics(
            OracleError(
                ErrorCode.AUTH_FAILED,
                f"Signing in failed: {type(exc).__name__}: {first_line}",
                suggested_next_step="Look at the diagnostics, then run `oraculum auth` again.",
            ),
            run,
        ) from exc


async def _locked(config: Config, request: AuthRequest, run: AuthRunLog) -> AuthResult:
    provider = normalize_provider(request.provider)
    seed = seed_profile_dir(config, provider)
    chat_url, auth_url = provider_urls(config, provider)
    policy = policy_for(provider, chat_url)
    seeds.check_seed_paths(seed)
    ensure_private_dir(seed.parent)
    seeds.sweep_staging(seed, run.log)

    headed = want_headed(request)
    source = _cookie_source(config, request, provider, headed=headed)
    mode: Mode = "import" if source is not None else "manual"
    imported: PolicyResult | None = None
    if source is not None:
        imported = await _import(source, policy, chat_url, run)
    run.log(f"provider {provider}, mode {mode}, seed {seed}, {'headed' if headed else 'headless'}")

    staged, adopted = _staging(seed, run)
    options = LaunchOptions.from_config(config, headed=headed)
    timeout_s = config.auth.bootstrap_timeout_ms / 1000
    poll_s = config.auth.poll_ms / 1000
    try:
        verified = await _sign_in_and_verify(
            staged,
            options,
            request,
            run,
            policy=policy,
            imported=imported,
            fresh=not adopted,
            chat_url=chat_url,
            auth_url=auth_url,
            timeout_s=timeout_s,
            poll_s=poll_s,
        )
        _check_seed_written(staged, provider, chat_url)
        generation = seeds.swap_into_place(staged, seed)
    except ChallengeShown as challenge:
        raise _park_for_user(staged, options, challenge, policy, run) from None
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise
    message = _signed_in_message(verified, policy, imported, seed, run)
    run.log(message)  # the result carries it to the person: said once, there
    sign_in = SignIn(
        identity=verified.identity,
        source=source.cookie_db if source else None,
        cookies=tuple(c.label for c in imported.kept) if imported else (),
        diagnostics_dir=run.dir,
        log=run.path,
    )
    previous = seeds.previous_dir(seed)
    kept = previous if previous.exists() else None
    return AuthResult(provider, mode, seed, kept, generation, message, sign_in)


def _cookie_source(
    config: Config, request: AuthRequest, provider: str, *, headed: bool
) -> CookieSource | None:
    """The browser profile to import cookies from, or None to sign in by hand; refused when
    there is neither a profile nor a display for a sign-in window."""
    source: CookieSource | None = None
    if not request.manual:
        source = resolve_source(
            request.from_browser,
            home=request.home or Path.home(),
            profile=config.auth.chrome_profile,
            cookie_path=config.auth.chrome_cookie_path,
        )
    if source is None and not headed and not forced_headless(request):
        raise OracleError(
            ErrorCode.AUTH_UNAVAILABLE,
            "No signed-in Chrome, Chromium or Brave profile was found to import from, and "
            "there is no display for a sign-in window.",
            suggested_next_step="On a machine with a display, sign in "
            f"(`{auth_command(provider)} --manual`) and run "
            f"`oraculum auth {provider} --export FILE`, copy FILE here and run "
            f"`oraculum auth {provider} --import-seed FILE`; or run "
            f"`{auth_command(provider)} --from-browser PATH` with a signed-in browser profile "
            "here, or use the relay transport over an SSH-forwarded port (docs/transports.md).",
        )
    return source


def _check_seed_written(staged: Path, provider: str, chat_url: str) -> None:
    """The browser is closed now: what it wrote is what the seed will hold, so the session
    cookie must be on disk."""
    problem = seed_session_problem(staged, provider, chat_url)
    if problem is not None:
        raise OracleError(
            ErrorCode.AUTH_VERIFICATION_FAILED,
            "The browser verified the sign-in but did not store the session cookie on "
            f"disk ({problem.code}).",
            suggested_next_step=f"Run `{auth_command(provider)}` again.",
        )


def _signed_in_message(
    verified: Verified,
    policy: CookiePolicy,
    imported: PolicyResult | None,
    seed: Path,
    run: AuthRunLog,
) -> str:
    return (
        f"{verified.reason} Signed in to {policy.label}"
        + (f" as {verified.identity}" if verified.identity else "")
        + (f"; synced {len(imported.kept)} cookies" if imported else " by hand")
        + f" into {seed}. Diagnostics: {run.dir}"
    )


async def _import(
    source: CookieSource, policy: CookiePolicy, chat_url: str, run: AuthRunLog
) -> PolicyResult:
    chat_host = (urlsplit(chat_url).hostname or "").lower()
    run.say(f"Reading {policy.label} cookies from {source.description} (read-only).")
    try:
        rows = await asyncio.wait_for(
            asyncio.to_thread(read_cookies, source, policy.read_domains(chat_host)),
            COOKIE_READ_TIMEOUT_S,
        )
    except TimeoutError:
        raise OracleError(
            ErrorCode.AUTH_COOKIE_READ_FAILED,
            f"Reading {source.description} took longer than {COOKIE_READ_TIMEOUT_S:.0f} s "
            "(a keyring prompt waiting for an answer?).",
            retryable=True,
        ) from None
    result = apply_policy(rows, policy, chat_url)
    for line in result.log_lines():
        run.log(line)
    if not result.has_session:
        raise OracleError(
            ErrorCode.AUTH_SESSION_COOKIE_MISSING,
            f"No {policy.label} session cookie was found in {source.description}. Make sure "
            f"{policy.label} is signed in in that browser profile.",
            rejected_value=str(source.cookie_db),
            suggested_next_step=f"Sign in to {policy.label} in that browser and rerun "
            f"`{auth_command(policy.provider)}`, or sign in by hand with "
            f"`{auth_command(policy.provider)} --manual`.",
        )
    return result


def _staging(seed: Path, run: AuthRunLog) -> tuple[Path, bool]:
    """A new staging directory, or the profile a previous run parked on a challenge (it holds
    whatever the user solved there)."""
    parked = seeds.latest_parked(seed)
    if parked is not None:
        seeds.close_parked_browser(parked)
        staged = seeds.adopt_parked(parked, seed)
        run.log(f"reusing the profile parked on a challenge: {parked.path} -> {staged}")
        return staged, True
    staged = seeds.staging_dir(seed)
    staged.mkdir(mode=0o700)
    run.log(f"staging {staged}")
    return staged, False


async def _sign_in_and_verify(
    staged: Path,
    options: LaunchOptions,
    request: AuthRequest,
    run: AuthRunLog,
    *,
    policy: CookiePolicy,
    imported: PolicyResult | None,
    fresh: bool,
    chat_url: str,
    auth_url: str,
    timeout_s: float,
    poll_s: float,
) -> Verified:
    async with browser_on_profile(staged, options) as context:
        page = context.pages[0] if context.pages else await context.new_page()
        if imported is not None:
            if fresh:
                await context.clear_cookies()
            await context.add_cookies([c.to_playwright() for c in imported.kept])  # type: ignore[misc]
            run.log(f"applied {len(imported.kept)} cookies")
            await page.goto(chat_url)
        else:
            await page.goto(auth_url)
            run.say(
                f"Sign in to {policy.label} in the browser window that just opened; waiting up "
                f"to {timeout_s / 60:.0f} min."
            )
        watcher = asyncio.create_task(request.watch(context, page)) if request.watch else None
        try:
            verified = await verify_signed_in(
                page,
                page_check(policy.provider, page, chat_url, auth_url),
                manual=imported is None,
                timeout_s=timeout_s,
                poll_s=poll_s,
                log=run.log,
                capture=run.capture,
            )
        finally:
            if watcher is not None:
                watcher.cancel()
                with contextlib.suppress(BaseException):
                    await watcher
        await run.capture(page)
        run.log(f"verified: {verified.reason} at {verified.url}; closing the browser")
    return verified


def _park_for_user(
    staged: Path,
    options: LaunchOptions,
    challenge: ChallengeShown,
    policy: CookiePolicy,
    run: AuthRunLog,
) -> OracleError:
    """Leave the staged profile open in a browser of its own (it outlives this process) so the
    user can solve the check; the next `oraculum auth` run picks the profile up."""
    step = (
        f"Solve the check in the browser window oraculum left open on {policy.label}, close "
        f"that window, then run `{auth_command(policy.provider)}` again."
    )
    if options.headless:
        shutil.rmtree(staged, ignore_errors=True)
        step = (
            f"{policy.label} wants a human check, and this run has no window to show it in. "
            f"Run `{auth_command(policy.provider)} --manual` in a desktop session."
        )
    else:
        pid, started = open_for_user(staged, options, challenge.url)
        seeds.park(staged, pid, started, challenge.url)
        run.log(f"left a browser (pid {pid}) open on {challenge.url} with profile {staged}")
    return OracleError(
        ErrorCode.AUTH_CHALLENGE,
        f"{challenge.reason} The previous seed profile is unchanged.",
        rejected_value=challenge.url,
        suggested_next_step=step,
        retryable=True,
        details={"stagedProfileDir": str(staged)} if not options.headless else None,
    )


def open_for_user(staged: Path, options: LaunchOptions, url: str) -> tuple[int, float]:
    """Start Chromium on ``staged`` detached from this process; (pid, start time)."""
    import psutil

    argv = [
        str(options.executable),
        f"--user-data-dir={staged}",
        # The flags Playwright launches with, so the cookie store stays readable by later runs.
        "--password-store=basic",
        "--use-mock-keychain",
        *options.args,
    ]
    if options.user_agent:
        argv.append(f"--user-agent={options.user_agent}")
    if options.headless:
        argv.append("--headless=new")
    argv.append(url)
    process = spawn_group(argv)
    try:
        started = psutil.Process(process.pid).create_time()
    except psutil.Error:
        started = time.time()
    return process.pid, started
