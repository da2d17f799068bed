"""Grok Heavy selection and the page classifier on the real Grok simulator page (no worker)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from playwright.async_api import Page, async_playwright

from homes import headless_browser
from oraculum.browser.chromium import launch_args
from oraculum.core.errors import OracleError
from oraculum.providers.grok.model import select_heavy
from oraculum.providers.grok.page import GrokPage
from oraculum.providers.grok.page_state import PageState, allowed_origins, classify
from oraculum.simulator import SimulatorThread

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorThread]:
    with SimulatorThread(provider="grok", hydrate_ms=50) as running:
        yield running


async def open_page(sim: SimulatorThread, *, signed_in: bool) -> AsyncIterator[Page]:
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=str(headless_browser()), args=launch_args(), headless=True
        )
        context = await browser.new_context()
        if signed_in:
            await context.add_cookies([sim.session_cookie()])
        yield await context.new_page()
        await browser.close()


async def state_of(grok: GrokPage, sim: SimulatorThread) -> PageState:
    await grok.page.locator('[contenteditable="true"]').wait_for()
    return classify(await grok.observe(), allowed_origins(sim.url + "/")).state


async def test_heavy_is_selected_and_verified_from_another_model(sim) -> None:
    async for page in open_page(sim, signed_in=True):
        grok = GrokPage(page)
        await page.goto(sim.chat_url(model="expert"))
        assert await state_of(grok, sim) == PageState.READY
        assert not (await grok.model_select_text()).startswith("Heavy")
        observed = await select_heavy(grok, lambda _m: None)
        assert observed["shows"] == "Heavy" and observed["verification"] == "strong"
        assert await grok.model_select().get_attribute("aria-expanded") == "false"
        # The account keeps it: a fresh page shows Heavy without any click.
        await page.goto(sim.url + "/")
        assert (await grok.model_select_text()).startswith("Heavy")


async def test_signed_out_page_is_login_required_and_offers_no_heavy(sim) -> None:
    async for page in open_page(sim, signed_in=False):
        grok = GrokPage(page)
        await page.goto(sim.url + "/")
        assert await state_of(grok, sim) == PageState.LOGIN_REQUIRED
        # Even where the button names Heavy (the account's last model), the item is refused.
        with pytest.raises(OracleError) as info:
            await select_heavy(grok, lambda _m: None)
        assert info.value.code == "auth_login_required"
        assert "signed-in" in info.value.message
        assert await grok.model_select().get_attribute("aria-expanded") == "false"
