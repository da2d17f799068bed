"""Writing a seed profile: stage it next to the seed directory, sign it in, verify, swap.

The swap is atomic (rename), the previous seed is kept as `<seed>.prev` for rollback, and a
failed run leaves the previous seed untouched.
"""

from __future__ import annotations

import secrets
import shutil
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from playwright.async_api import BrowserContext

from oraculum.browser.profile import SEED_GENERATION_FILE
from oraculum.browser.session import LaunchOptions, browser_on_profile
from oraculum.core.fsio import atomic_write_text, ensure_private_dir


def staging_dir(seed: Path) -> Path:
    return seed.with_name(f"{seed.name}.staging-{int(time.time())}-{secrets.token_hex(3)}")


def swap_into_place(staged: Path, seed: Path) -> str:
    """Make ``staged`` the seed, keeping the old one as `.prev`; return the new generation."""
    generation = f"{int(time.time())}-{secrets.token_hex(4)}"
    atomic_write_text(staged / SEED_GENERATION_FILE, generation + "\n")
    previous = seed.with_name(seed.name + ".prev")
    if seed.exists():
        if previous.exists():
            shutil.rmtree(previous)
        seed.rename(previous)
    staged.rename(seed)
    return generation


async def build_seed(
    seed: Path,
    options: LaunchOptions,
    sign_in: Callable[[BrowserContext], Awaitable[Any]],
    verify: Callable[[BrowserContext], Awaitable[bool]],
) -> str:
    """Stage a profile, let ``sign_in`` put a session into it, ``verify`` it, then swap it in.

    The browser is closed before the swap so Chromium flushes its cookie store to disk."""
    ensure_private_dir(seed.parent)
    staged = staging_dir(seed)
    staged.mkdir(mode=0o700)
    try:
        async with browser_on_profile(staged, options) as context:
            await sign_in(context)
            if not await verify(context):
                raise RuntimeError("the signed-in profile did not verify")
        return swap_into_place(staged, seed)
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise
