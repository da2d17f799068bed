"""One Chromium per test module, and a simulator per shell, shared by the browser tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, BrowserContext, Page, async_playwright

from homes import headless_browser
from oraculum.browser.chromium import launch_args
from oraculum.jobs.model import Job
from oraculum.jobs.store import JobPaths
from oraculum.simulator import Simulator, run_simulator

from .support import SEEDED_ARCHIVE, Persist, make_job

SHELLS = ("classic", "redesign")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(
            executable_path=str(headless_browser()), args=launch_args(), headless=True
        )
        try:
            yield chromium
        finally:
            await chromium.close()


@dataclass
class Shell:
    name: str
    sim: Simulator
    context: BrowserContext

    async def open(self, turns: list[Any], **knobs: Any) -> tuple[Page, str]:
        """A new page on a freshly seeded conversation, its turns rendered.

        A plain first question shows SEEDED_ARCHIVE, as a job's own user turn shows its
        archive: collection binds the answer through that turn (jobs made with
        ``make_job(..., archive_name=SEEDED_ARCHIVE)``)."""
        if turns and isinstance(turns[0], str):
            turns = [{"text": turns[0], "attachments": [SEEDED_ARCHIVE]}, *turns[1:]]
        cid = self.sim.seed_conversation(turns, **knobs)
        page = await self.context.new_page()
        await page.goto(self.sim.conversation_url(cid))
        await page.wait_for_selector(".assistant-message")
        return page, cid

    def job_on(self, root: Path, cid: str, **fields: Any) -> tuple[Job, JobPaths, Persist]:
        """A job whose answer is the reply in conversation ``cid`` (bound through the turn
        that shows SEEDED_ARCHIVE), and the persist callback collection writes it through."""
        store, job, paths = make_job(
            root,
            conversation_id=cid,
            chat_url=self.sim.conversation_url(cid),
            archive_name=SEEDED_ARCHIVE,
            **fields,
        )
        return job, paths, Persist(store, job.id)


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=SHELLS)
async def shell(request: pytest.FixtureRequest, browser: Browser) -> AsyncIterator[Shell]:
    async with run_simulator(shell=request.param) as sim:
        context = await browser.new_context(accept_downloads=True)
        await context.add_cookies([sim.session_cookie()])  # type: ignore[list-item]
        try:
            yield Shell(request.param, sim, context)
        finally:
            await context.close()
