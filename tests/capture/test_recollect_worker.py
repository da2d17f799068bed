"""`python -m oraculum.worker recollect`: a completed job whose first capture failed."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
from playwright.async_api import async_playwright

from homes import headless_browser
from oraculum.browser.chromium import launch_args
from oraculum.core.config import Config
from oraculum.jobs.store import JobStore
from oraculum.simulator import SimulatorThread
from oraculum.worker.run import main as worker_main

from .support import make_job

pytestmark = pytest.mark.browser


async def _sign_in_seed(seed: Path, cookie: dict) -> None:
    """A seed profile holding the simulator's session, as `oraculum auth` would leave it."""
    async with async_playwright() as playwright:
        context = await playwright.chromium.launch_persistent_context(
            str(seed), executable_path=str(headless_browser()), args=launch_args(), headless=True
        )
        # A persistent cookie (with an expiry) is what a real sign-in leaves on disk.
        await context.add_cookies([{**cookie, "expires": time.time() + 3600}])
        await context.close()


def test_recollect_a_job_whose_first_capture_failed(oraculum_home: Path, tmp_path: Path) -> None:
    seed = tmp_path / "profiles" / "seed"
    config = Config.model_validate(
        {
            "browser": {
                "authSeedProfileDir": str(seed),
                "runtimeProfilesDir": str(tmp_path / "profiles" / "runtime"),
            }
        }
    )
    with SimulatorThread(shell="redesign") as sim:
        asyncio.run(_sign_in_seed(seed, sim.session_cookie()))
        store, job, paths = make_job(tmp_path, conversation_id=None, chat_url=None, config=config)
        archive = Path(job.archive_path).name
        cid = sim.seed_conversation(
            [
                {"text": "Earlier question", "attachments": ["context-someone-else.tar.zst"]},
                "An earlier answer.",
                {"text": "Review this", "attachments": [archive]},
                "## Review\n\nAll **good**.",
            ],
            message_ids="none",  # no identity: the binding stays positional
        )
        # The first capture failed before it learned the turn: positional binding only.
        store, job, paths = make_job(
            tmp_path / "second",
            conversation_id=cid,
            chat_url=sim.conversation_url(cid),
            config=config,
            complete=True,
            collection_status="failed",
            collection_gaps=["bound_response_capture"],
            recollection_needed=True,
            collection_binding={"conversationId": cid, "responseIndex": 1},
            archive_path=job.archive_path,
        )
        assert worker_main(["recollect", str(paths.dir)]) == 0
        done = store.load(job.id)
        assert done.collection_status == "complete", done.collection_gaps
        assert not done.recollection_needed and done.recollection_error is None
        assert paths.response.read_text() == "## Review\n\nAll **good**.\n"
        assert done.collection_binding is not None
        assert done.collection_binding["responseIndex"] == 1
        assert done.collection_binding["turnSha256"]
        assert json.loads((paths.dir / "response.capture.json").read_text())["fidelity"] == (
            "derived_markdown"
        )
        # Nothing was sent: the simulator accepted no user message.
        assert sim.state.user_messages() == []
        assert not any(e["type"] in ("message", "upload") for e in sim.state.events)
        # The runtime profile is gone.
        runtime = tmp_path / "profiles" / "runtime"
        assert not runtime.exists() or not any(runtime.iterdir())


def test_recollect_refuses_a_job_that_is_not_complete(oraculum_home: Path, tmp_path: Path) -> None:
    _store, job, paths = make_job(
        tmp_path, conversation_id="c1", chat_url="http://127.0.0.1:1/c/c1"
    )
    assert worker_main(["recollect", str(paths.dir)]) == 3
    assert JobStore(paths.dir.parent).load(job.id).collection_status is None
