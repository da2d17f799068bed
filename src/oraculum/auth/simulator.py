"""Signing a seed profile into a local simulator (the demo, and tests of the real flow).

The session cookie is stored by Chromium itself: the staged profile visits the simulator's
login form like a person would, so the seed is built exactly as `oraculum auth` builds one.
"""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import BrowserContext

from oraculum.auth.seed import build_seed
from oraculum.browser.session import LaunchOptions

ME_PATH = "/backend-api/me"


async def sign_in_with_form(context: BrowserContext, sign_in_url: str, email: str) -> None:
    page = context.pages[0] if context.pages else await context.new_page()
    await page.goto(sign_in_url)
    await page.get_by_label("Email address").fill(email)
    async with page.expect_navigation():
        await page.get_by_role("button", name="Continue", exact=True).click()


async def signed_in(context: BrowserContext, base_url: str) -> bool:
    page = context.pages[0] if context.pages else await context.new_page()
    response = await page.request.get(base_url.rstrip("/") + ME_PATH)
    return response.status == 200


async def seed_simulator_profile(
    seed: Path, base_url: str, options: LaunchOptions, *, email: str = "demo@example.com"
) -> str:
    """Build ``seed`` signed in to the simulator at ``base_url``; return its generation."""

    async def sign_in(context: BrowserContext) -> None:
        await sign_in_with_form(context, base_url.rstrip("/") + "/auth/login", email)

    async def verify(context: BrowserContext) -> bool:
        return await signed_in(context, base_url)

    return await build_seed(seed, options, sign_in, verify)
