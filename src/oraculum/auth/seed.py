"""The seed directory on disk: staging next to it, the atomic swap with `.prev` rollback, the
sweep of old staging directories, and staging profiles parked for a human to finish.

Every change happens beside the seed (same parent, same filesystem), so the swap is a rename:
a job cloning the seed sees either the old profile or the new one, never half of each. A failed
run removes its staging directory and leaves the seed and `.prev` untouched.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import BrowserContext

from oraculum.browser.profile import SEED_GENERATION_FILE, read_seed_generation
from oraculum.browser.session import LaunchOptions, browser_on_profile
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.fsio import atomic_write_text, ensure_private_dir

STAGING_MARK = ".staging-"
# A staging profile left open on a challenge page for the user; the file names its browser.
PARKED_FILE = ".oraculum-auth-parked.json"
STALE_PARKED_S = 24 * 3600


def previous_dir(seed: Path) -> Path:
    return seed.with_name(seed.name + ".prev")


def staging_dir(seed: Path) -> Path:
    return seed.with_name(
        f"{seed.name}{STAGING_MARK}{int(time.time() * 1000)}-{secrets.token_hex(3)}"
    )


def check_seed_paths(seed: Path) -> None:
    """Refuse symlinks at the seed, its parent or `.prev`: a rename or rmtree there would
    follow the link out of oraculum's data directory."""
    for path in (seed.parent, seed, previous_dir(seed)):
        if path.is_symlink():
            raise OracleError(
                ErrorCode.ORACLE_PROFILE_PATH_UNSAFE,
                f"Refusing to write the seed profile through a symbolic link: {path}",
                rejected_value=str(path),
                suggested_next_step="Point browser.authSeedProfileDir at a real directory.",
            )


def new_generation() -> str:
    return f"{int(time.time())}-{secrets.token_hex(4)}"


def swap_into_place(staged: Path, seed: Path) -> str:
    """Make ``staged`` the seed, keeping the old one as `.prev`; return the new generation.

    The generation marker is written first, so every runtime clone of the new seed records it.
    If the final rename fails while the seed is already gone, the previous seed is put back.
    """
    check_seed_paths(seed)
    generation = new_generation()
    atomic_write_text(staged / SEED_GENERATION_FILE, generation + "\n")
    with contextlib.suppress(FileNotFoundError):
        (staged / PARKED_FILE).unlink()
    previous = previous_dir(seed)
    if seed.exists():
        if previous.exists():
            shutil.rmtree(previous)
        seed.rename(previous)
    try:
        staged.rename(seed)
    except OSError:
        if not seed.exists() and previous.exists():
            previous.rename(seed)
        raise
    return generation


def rollback_seed(seed: Path) -> str | None:
    """Put `.prev` back as the seed; the seed it replaces becomes `.prev` (so a second rollback
    undoes the first). Returns the restored generation."""
    check_seed_paths(seed)
    previous = previous_dir(seed)
    if not previous.is_dir():
        raise OracleError(
            ErrorCode.AUTH_ROLLBACK_UNAVAILABLE,
            f"There is no previous seed profile to restore ({previous} does not exist).",
            rejected_value=str(previous),
            suggested_next_step="Run `oraculum auth` to sign in again.",
        )
    aside = seed.with_name(f"{seed.name}{STAGING_MARK}rollback-{secrets.token_hex(3)}")
    if seed.exists():
        seed.rename(aside)
    try:
        previous.rename(seed)
    except OSError:
        if aside.exists():
            aside.rename(seed)
        raise
    if aside.exists():
        aside.rename(previous)
    return read_seed_generation(seed)


# --- parked staging profiles and the sweep -----------------------------------------------


@dataclass(frozen=True)
class StagingEntry:
    path: Path
    age_s: float
    parked: bool  # left open on a challenge for the user
    browser_alive: bool  # the browser oraculum left on it still runs


def sweep_choice(entries: list[StagingEntry]) -> list[Path]:
    """Which staging directories to delete. Called only under the auth lock, so no other auth
    run is using any of them: an unparked one is a crashed run's leftover. A parked one is kept
    while its browser is open or for a day, so the user can finish the check and rerun."""
    doomed = []
    for entry in entries:
        if not entry.parked or (not entry.browser_alive and entry.age_s > STALE_PARKED_S):
            doomed.append(entry.path)
    return doomed


def _parked_info(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((path / PARKED_FILE).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _process_alive(pid: Any, started: Any) -> bool:
    """Whether the process oraculum started (pid + start time) still runs: never pid alone."""
    import psutil

    if not isinstance(pid, int) or not isinstance(started, int | float):
        return False
    try:
        return abs(psutil.Process(pid).create_time() - float(started)) < 1.0
    except (psutil.Error, ValueError):
        return False


def staging_entries(seed: Path, now: float | None = None) -> list[StagingEntry]:
    now = time.time() if now is None else now
    entries: list[StagingEntry] = []
    if not seed.parent.is_dir():
        return entries
    prefix = seed.name + STAGING_MARK
    for path in seed.parent.iterdir():
        if not path.name.startswith(prefix) or path.is_symlink() or not path.is_dir():
            continue
        info = _parked_info(path)
        alive = info is not None and _process_alive(info.get("pid"), info.get("started"))
        try:
            age = now - path.stat().st_mtime
        except OSError:
            continue
        entries.append(StagingEntry(path, age, info is not None, alive))
    return entries


def sweep_staging(seed: Path, log: Callable[[str], None] = lambda _m: None) -> list[Path]:
    doomed = sweep_choice(staging_entries(seed))
    for path in doomed:
        shutil.rmtree(path, ignore_errors=True)
        log(f"swept old staging directory {path}")
    return doomed


def latest_parked(seed: Path) -> StagingEntry | None:
    parked = [e for e in staging_entries(seed) if e.parked]
    return min(parked, key=lambda e: e.age_s) if parked else None


def close_parked_browser(entry: StagingEntry, timeout_s: float = 10.0) -> None:
    """Quit the browser oraculum left on a parked profile (SIGTERM: Chromium's clean quit)."""
    import psutil

    info = _parked_info(entry.path) or {}
    if not _process_alive(info.get("pid"), info.get("started")):
        return
    with contextlib.suppress(psutil.Error):
        process = psutil.Process(info["pid"])
        process.terminate()
        try:
            process.wait(timeout_s)
        except psutil.TimeoutExpired:
            process.kill()


def park(staged: Path, pid: int, started: float, url: str) -> None:
    atomic_write_text(
        staged / PARKED_FILE,
        json.dumps({"pid": pid, "started": started, "url": url, "parkedAt": time.time()}) + "\n",
    )


def adopt_parked(entry: StagingEntry, seed: Path) -> Path:
    """Reuse a parked profile (it holds what the user solved) as a new staging directory."""
    target = staging_dir(seed)
    entry.path.rename(target)
    with contextlib.suppress(FileNotFoundError):
        (target / PARKED_FILE).unlink()
    os.utime(target)
    return target


# --- the lead's original entry point, kept for callers that build a seed directly -----------


async def build_seed(
    seed: Path,
    options: LaunchOptions,
    sign_in: Callable[[BrowserContext], Awaitable[Any]],
    verify: Callable[[BrowserContext], Awaitable[bool]],
) -> str:
    """Stage a profile, let ``sign_in`` put a session into it, ``verify`` it, then swap it in.

    The browser is closed before the swap so Chromium flushes its cookie store to disk."""
    check_seed_paths(seed)
    ensure_private_dir(seed.parent)
    staged = staging_dir(seed)
    staged.mkdir(mode=0o700)
    try:
        async with browser_on_profile(staged, options) as context:
            await sign_in(context)
            if not await verify(context):
                raise OracleError(
                    ErrorCode.AUTH_VERIFICATION_FAILED, "The signed-in profile did not verify."
                )
        return swap_into_place(staged, seed)
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise
