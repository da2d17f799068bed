"""Shared pieces of the transport tests: a user's sentinel tab, read without any emulation, and
a browser signed in to the simulator the way a person would (its own sign-in form)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import aiohttp
import pytest
from playwright.async_api import async_playwright

from oraculum.browser import cdp
from oraculum.simulator import SimulatorThread
from providers.conftest import FAST_SIM

SENTINEL_HTML = "data:text/html,<title>user tab</title><p>the user's own tab</p>"


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorThread]:
    """The ChatGPT simulator, one per test module, at the driver tests' fast pacing."""
    with SimulatorThread(**FAST_SIM) as running:
        yield running


async def _session_call(ws: aiohttp.ClientWebSocketResponse, message: dict[str, Any]) -> Any:
    await ws.send_json(message)
    async for frame in ws:
        answer = json.loads(frame.data)
        if answer.get("id") == message["id"]:
            assert "error" not in answer, answer
            return answer["result"]
    raise AssertionError("the browser closed the connection")


async def tab_state(ws_url: str, target_id: str) -> list[Any]:
    """``[document.visibilityState, document.hasFocus()]`` of a tab, read over a raw DevTools
    session (Playwright would emulate focus and so could not see focus being taken)."""
    async with aiohttp.ClientSession() as http, http.ws_connect(ws_url) as ws:
        attached = await _session_call(
            ws,
            {
                "id": 1,
                "method": "Target.attachToTarget",
                "params": {"targetId": target_id, "flatten": True},
            },
        )
        evaluated = await _session_call(
            ws,
            {
                "id": 2,
                "sessionId": attached["sessionId"],
                "method": "Runtime.evaluate",
                "params": {
                    "expression": "[document.visibilityState, document.hasFocus()]",
                    "returnByValue": True,
                },
            },
        )
        await _session_call(
            ws,
            {
                "id": 3,
                "method": "Target.detachFromTarget",
                "params": {"sessionId": attached["sessionId"]},
            },
        )
    return list(evaluated["result"]["value"])


async def page_targets(http_url: str) -> list[dict[str, Any]]:
    return [t for t in await cdp.get_json(f"{http_url}/json/list") if t.get("type") == "page"]


async def sign_in_and_open_sentinel(endpoint: cdp.Endpoint, sim: SimulatorThread) -> str:
    """Sign the browser in through the simulator's form in a new foreground tab, as the user
    would, then leave that tab on a page of the user's; returns its target id."""
    async with async_playwright() as playwright:
        browser = await playwright.chromium.connect_over_cdp(endpoint.http_url)
        page = await browser.contexts[0].new_page()  # a foreground tab, as a person opens one
        info = await (await browser.contexts[0].new_cdp_session(page)).send("Target.getTargetInfo")
        await page.goto(sim.sign_in_url)
        await page.get_by_label("Email address").fill("user@example.com")
        async with page.expect_navigation():
            await page.get_by_role("button", name="Continue", exact=True).click()
        await page.goto(SENTINEL_HTML)
    # Leaving the driver disconnects it; the browser and its tabs stay.
    return str(info["targetInfo"]["targetId"])
