"""A Chromium for one job: a persistent Playwright context on the job's runtime profile."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from playwright.async_api import BrowserContext, Playwright, ViewportSize

from oraculum.browser.chromium import launch_args, playwright_driver, resolve_executable
from oraculum.core.config import Config

CLOSE_TIMEOUT_S = 10.0
VIEWPORT: ViewportSize = {"width": 1280, "height": 900}


@dataclass(frozen=True)
class LaunchOptions:
    executable: Path
    headless: bool
    args: list[str]
    user_agent: str | None

    @classmethod
    def from_config(cls, config: Config, *, headed: bool | None = None) -> LaunchOptions:
        executable = resolve_executable(
            str(config.browser.executable_path) if config.browser.executable_path else None
        )
        run_headed = config.browser.run_mode == "headed" if headed is None else headed
        return cls(
            executable=executable,
            headless=not run_headed,
            args=launch_args(list(config.browser.args)),
            user_agent=config.browser.user_agent,
        )


async def launch_persistent(
    playwright: Playwright, profile_dir: Path, options: LaunchOptions
) -> BrowserContext:
    return await playwright.chromium.launch_persistent_context(
        str(profile_dir),
        executable_path=str(options.executable),
        headless=options.headless,
        args=options.args,
        user_agent=options.user_agent,
        viewport=VIEWPORT,
        accept_downloads=True,
        ignore_default_args=["--enable-automation"],
    )


@contextlib.asynccontextmanager
async def browser_on_profile(
    profile_dir: Path, options: LaunchOptions
) -> AsyncIterator[BrowserContext]:
    """Launch Chromium on ``profile_dir``; always close it, time-bounded, on the way out."""
    async with playwright_driver() as playwright:
        context = await launch_persistent(playwright, profile_dir, options)
        try:
            yield context
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(context.close(), CLOSE_TIMEOUT_S)
