"""Signing a seed profile into a local simulator (the demo, and tests of the real flow).

The session cookie is stored by Chromium itself: the staged profile visits the simulator's
sign-in form like a person would, so the seed is built exactly as `oraculum auth` builds one.
Each look-alike has its own form and cookie (ChatGPT: `/auth/login`, `oraculum-sim-session`;
Grok: `/sign-in`, `sso`).
"""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import BrowserContext

from oraculum.auth.seed import build_seed
from oraculum.browser.session import LaunchOptions
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.simulator.site import site_for

ME_PATH = "/backend-api/me"
# The simulator's own "who is signed in" probe, for a site without an identity endpoint.
SESSION_PATH = "/__sim/session"


async def sign_in_with_form(
    context: BrowserContext, sign_in_url: str, email: str, *, provider: str = "chatgpt"
) -> None:
    page = context.pages[0] if context.pages else await context.new_page()
    response = await page.goto(sign_in_url)
    if response is None or not response.ok:
        # Typically a simulator of another site: waiting for a form that is not there would
        # only time out.
        status = response.status if response is not None else "no response"
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            f"No {provider} simulator sign-in form at {sign_in_url} (HTTP {status}).",
            rejected_value=sign_in_url,
            suggested_next_step="Seed against a simulator of the same provider "
            '(run_simulator(provider="grok") for a Grok seed).',
        )
    await page.get_by_label("Email address").fill(email)
    async with page.expect_navigation():
        await page.get_by_role("button", name="Continue", exact=True).click()


async def signed_in(context: BrowserContext, base_url: str, provider: str = "chatgpt") -> bool:
    page = context.pages[0] if context.pages else await context.new_page()
    path = ME_PATH if site_for(provider).has_identity_endpoint else SESSION_PATH
    response = await page.request.get(base_url.rstrip("/") + path)
    return response.status == 200


async def seed_simulator_profile(
    seed: Path,
    base_url: str,
    options: LaunchOptions,
    *,
    email: str = "demo@example.com",
    provider: str = "chatgpt",
) -> str:
    """Build ``seed`` signed in to the ``provider`` simulator at ``base_url`` (a simulator
    started with the same provider); return its generation."""
    sign_in_url = base_url.rstrip("/") + site_for(provider).sign_in_path

    async def sign_in(context: BrowserContext) -> None:
        await sign_in_with_form(context, sign_in_url, email, provider=provider)

    async def verify(context: BrowserContext) -> bool:
        return await signed_in(context, base_url, provider)

    return await build_seed(seed, options, sign_in, verify)
