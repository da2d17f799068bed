"""`seed_simulator_profile(provider="grok")`: a seed profile signed in to the Grok look-alike
through its sign-in form, its `sso` cookie stored by Chromium itself."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from playwright.async_api import expect

from homes import headless_browser
from oraculum.auth.simulator import seed_simulator_profile
from oraculum.browser.chromium import launch_args
from oraculum.browser.profile import read_seed_generation
from oraculum.browser.session import LaunchOptions, browser_on_profile
from oraculum.core.errors import OracleError
from oraculum.simulator import SimulatorThread

pytestmark = [pytest.mark.browser]

OPTIONS = LaunchOptions(
    executable=headless_browser(), headless=True, args=launch_args(), user_agent=None
)


async def _open_signed_in(seed: Path, url: str) -> tuple[dict[str, str], int]:
    """The seed's cookies for `url`, and how many "Sign in" links its page shows."""
    async with browser_on_profile(seed, OPTIONS) as context:
        cookies = {c["name"]: c["value"] for c in await context.cookies(url)}
        page = context.pages[0] if context.pages else await context.new_page()
        await page.goto(url + "/")
        await expect(page.get_by_role("button", name="Attach", exact=True)).to_be_visible()
        return cookies, await page.get_by_role("link", name="Sign in", exact=True).count()


def test_grok_seed_is_signed_in_with_sso(tmp_path: Path) -> None:
    seed = tmp_path / "seed-grok"
    with SimulatorThread(provider="grok", hydrate_ms=50) as sim:
        generation = asyncio.run(
            seed_simulator_profile(seed, sim.url, OPTIONS, email="seed@x.ai", provider="grok")
        )
        assert generation and read_seed_generation(seed) == generation
        assert list(sim.state.sessions.values()) == ["seed@x.ai"]
        assert [e["email"] for e in sim.state.events_of("login")] == ["seed@x.ai"]
        cookies, sign_in_links = asyncio.run(_open_signed_in(seed, sim.url))
    assert set(cookies) == {"sso"}
    assert sim.state.sessions[cookies["sso"]] == "seed@x.ai"
    assert sign_in_links == 0


def test_grok_seed_refuses_a_simulator_of_another_site(tmp_path: Path) -> None:
    """A Grok seed signed in against the ChatGPT look-alike would carry the wrong cookie."""
    with SimulatorThread() as sim, pytest.raises(OracleError) as caught:
        asyncio.run(seed_simulator_profile(tmp_path / "seed", sim.url, OPTIONS, provider="grok"))
    assert caught.value.code == "invalid_argument"
    assert "No grok simulator sign-in form" in caught.value.message
    assert not (tmp_path / "seed").exists()
