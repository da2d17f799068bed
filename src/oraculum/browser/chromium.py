"""Which Chromium to run, with which flags, and the Playwright driver that runs it.

Playwright's own browser download is never required: we use the configured executable or the
system's Chromium/Chrome by path.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from oraculum.core.errors import ErrorCode, OracleError

if TYPE_CHECKING:
    from playwright.async_api import PlaywrightContextManager

# Flags every launch carries. Without the networking ones Chromium phones home at start and, on
# a closed network, fills logs with refused connections.
REQUIRED_ARGS: tuple[str, ...] = (
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--no-default-browser-check",
)

SYSTEM_CANDIDATES: tuple[str, ...] = (
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
)


def launch_args(extra: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The argv tail for a Chromium launch: required flags, sandbox rule, then ``extra``."""
    args = list(REQUIRED_ARGS)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        # Chromium refuses to start as root with its sandbox on.
        args.append("--no-sandbox")
    args.extend(extra)
    return args


def resolve_executable(configured: str | None = None) -> Path:
    """The configured executable, else the first system Chromium/Chrome found."""
    if configured:
        path = Path(configured)
        if not path.exists():
            raise OracleError(
                ErrorCode.BROWSER_EXECUTABLE_MISSING,
                f"Configured browser executable does not exist: {path}",
                rejected_value=str(path),
                suggested_next_step="Fix browser.executablePath in the global config.",
            )
        if not path.is_file() or not os.access(path, os.X_OK):
            raise OracleError(
                ErrorCode.BROWSER_EXECUTABLE_NOT_EXECUTABLE,
                f"Configured browser executable is not an executable file: {path}",
                rejected_value=str(path),
                suggested_next_step="Point browser.executablePath at the Chromium binary.",
            )
        return path
    for candidate in SYSTEM_CANDIDATES:
        if os.access(candidate, os.X_OK):
            return Path(candidate)
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return Path(found)
    raise OracleError(
        ErrorCode.BROWSER_EXECUTABLE_MISSING,
        "No Chromium or Chrome executable found.",
        suggested_next_step="Install Debian's chromium (`apt-get install -y chromium`) "
        "or set browser.executablePath in the global config.",
    )


def playwright_driver() -> PlaywrightContextManager:
    """``async_playwright()``, its Node driver started with Node's on-disk compile cache.

    Each job's worker (and each fetch, auth, doctor) starts a fresh driver, and most of that
    start is Node compiling Playwright's bundle: the user's cache (``NODE_COMPILE_CACHE``, kept
    when set) cuts about a quarter of its CPU. The cache holds compiled Playwright code only."""
    from platformdirs import user_cache_path
    from playwright.async_api import async_playwright

    from oraculum.core.fsio import ensure_private_dir

    if "NODE_COMPILE_CACHE" not in os.environ:
        with contextlib.suppress(OSError):  # no cache is only slower
            cache = ensure_private_dir(user_cache_path("oraculum") / "node-compile-cache")
            os.environ["NODE_COMPILE_CACHE"] = str(cache)
    return async_playwright()
