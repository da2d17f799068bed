"""Fixtures for simulator tests: a running simulator per test and one Chromium per session."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio
from playwright.async_api import Browser, BrowserContext, Page, async_playwright

from homes import headless_browser
from oraculum.browser.chromium import launch_args
from oraculum.simulator import Simulator, run_simulator

# Fast pacing so the whole module stays quick; tests that need a visible stream slow it down.
FAST = {"think_ms": 150, "token_ms": 3, "hydrate_ms": 80, "upload_ms": 120}


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as pw:
        chromium = await pw.chromium.launch(
            executable_path=str(headless_browser()), args=launch_args(), headless=True
        )
        yield chromium
        await chromium.close()


@pytest_asyncio.fixture(loop_scope="session")
async def sim() -> AsyncIterator[Simulator]:
    async with run_simulator(**FAST) as running:
        yield running


@pytest_asyncio.fixture(loop_scope="session")
async def context(browser: Browser, sim: Simulator) -> AsyncIterator[BrowserContext]:
    """A signed-in browser context (its own session cookie)."""
    ctx = await browser.new_context(accept_downloads=True)
    ctx.set_default_timeout(10_000)
    await ctx.add_cookies([sim.session_cookie()])  # type: ignore[list-item]
    yield ctx
    await ctx.close()


@pytest_asyncio.fixture(loop_scope="session")
async def page(context: BrowserContext) -> Page:
    return await context.new_page()


@pytest_asyncio.fixture(loop_scope="session")
async def grok_sim() -> AsyncIterator[Simulator]:
    async with run_simulator(provider="grok", **FAST) as running:
        yield running


@pytest_asyncio.fixture(loop_scope="session")
async def grok_context(browser: Browser, grok_sim: Simulator) -> AsyncIterator[BrowserContext]:
    """A browser context signed in to the Grok look-alike (its own `sso` cookie)."""
    ctx = await browser.new_context(accept_downloads=True)
    ctx.set_default_timeout(10_000)
    await ctx.add_cookies([grok_sim.session_cookie()])  # type: ignore[list-item]
    yield ctx
    await ctx.close()


@pytest_asyncio.fixture(loop_scope="session")
async def grok_page(grok_context: BrowserContext) -> Page:
    return await grok_context.new_page()
