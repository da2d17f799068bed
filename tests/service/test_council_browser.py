"""A council of real ChatGPT and Grok members (issue 43 §1) through real workers and Chromium
against both simulators, on both ChatGPT shells, with a failing member: one wake-up each,
council.md with each answer under its model and the failure in the gaps. One home and one
sign-in per provider serve both councils."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from homes import SIMULATOR_WORKER, finished, write_global_config
from oraculum.auth.simulator import seed_simulator_profile
from oraculum.browser.session import LaunchOptions
from oraculum.core.config import seed_profile_dir
from oraculum.core.project import project_id
from oraculum.jobs.model import Phase, Status
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.council import read_council, submit_council
from oraculum.service.read import read
from oraculum.service.wait import advance_councils
from oraculum.sessions.poller import Poller
from oraculum.sessions.sinks import Inbox
from oraculum.sessions.wakeup import Wakeup
from oraculum.simulator import SimulatorThread

FAST_SIM = {"think_ms": 150, "token_ms": 2, "hydrate_ms": 80, "upload_ms": 120}
SESSION = "council-browser"
MEMBERS = "chatgpt:thinking_standard,grok:heavy,test:instant"

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def sims() -> Iterator[tuple[SimulatorThread, SimulatorThread]]:
    with (
        SimulatorThread(provider="chatgpt", **FAST_SIM) as chatgpt,
        SimulatorThread(provider="grok", **FAST_SIM) as grok,
    ):
        yield chatgpt, grok


def _woken(project: Path, timeout: float = 240.0) -> list[Wakeup]:
    inbox, woken = Inbox(), []
    poller = Poller(project_id(project), SESSION, inbox, after_reconcile=advance_councils)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not woken:
        poller.scan()
        woken += inbox.drain()
        time.sleep(0.3)
    for _ in range(3):  # nothing more may come
        poller.scan()
        time.sleep(0.3)
    return woken + inbox.drain()


def test_chatgpt_grok_and_a_failing_member_on_both_shells(
    project: Path, sims: tuple[SimulatorThread, SimulatorThread]
) -> None:
    chatgpt, grok = sims
    browser = {"chatUrl": chatgpt.url + "/", "grokUrl": grok.url + "/"}
    config = write_global_config({"browser": browser, "worker": SIMULATOR_WORKER})
    options = LaunchOptions.from_config(config)
    for provider, sim in (("chatgpt", chatgpt), ("grok", grok)):
        seed = seed_profile_dir(config, provider)
        asyncio.run(seed_simulator_profile(seed, sim.url, options, provider=provider))
    for shell in ("classic", "redesign"):
        overrides = {"browser": {"chatUrl": chatgpt.chat_url(shell=shell, picker="power")}}
        started = submit_council(
            f"Summarise the project ({shell}).",
            MEMBERS,
            ["."],
            caller=Caller(session=SESSION, overrides=overrides),
            member_extras={"test:instant": {"outcome": "fail"}},
        )
        council_id = started.council["id"]
        woken = _woken(project)
        assert [w.source_id for w in woken] == [council_id], [w.text for w in woken]
        assert "2 of 3 members answered" in woken[0].text, woken[0].text
        assert "test:instant" in woken[0].text and "test_provider_failed" in woken[0].text
        store = JobStore()
        jobs = {m["name"]: store.load(m["jobId"]) for m in started.council["members"]}
        assert jobs["chatgpt:thinking_standard"].status == Status.COMPLETE
        assert jobs["grok:heavy"].status == Status.COMPLETE
        assert jobs["grok:heavy"].archive_path.endswith(".tar.gz")
        assert jobs["chatgpt:thinking_standard"].archive_path.endswith(".tar.zst")
        assert all(job.wakeup_attempt_count == 0 for job in jobs.values())
        markdown = read_council(council_id).markdown or ""
        chatgpt_part = markdown.split("## chatgpt:thinking_standard")[1].split("## grok")[0]
        assert "model shown on the page:" in chatgpt_part and "not recorded" not in chatgpt_part
        assert "## grok:heavy" in markdown
        assert "test:instant (job" in markdown.split("## Gaps")[1]

        if shell == "classic":
            continue
        # The same home, one more council: its ChatGPT member's worker is SIGKILLed while the
        # answer streams; the council ends with it lost, and a recollection completes it.
        slow = {"browser": {"chatUrl": chatgpt.chat_url(shell=shell, token_ms=150, answer="echo")}}
        started = submit_council(
            "Echo this back: " + "word " * 60,
            "chatgpt:thinking_standard,grok:heavy",
            ["."],
            caller=Caller(session=SESSION, overrides=slow),
        )
        council_id = started.council["id"]
        member = started.council["members"][0]["jobId"]
        running = _until(member, lambda j: j.phase == Phase.AWAITING_RESPONSE and j.chat_url)
        time.sleep(1.0)  # the answer is streaming
        assert running.worker is not None
        os.kill(running.worker.pid, signal.SIGKILL)
        lost = finished(member, timeout=60)
        assert lost.status == Status.FAILED and lost.error_code == "worker_lost"
        woken = _woken(project)
        assert [w.source_id for w in woken] == [council_id]
        assert "1 of 2 members answered" in woken[0].text and "worker_lost" in woken[0].text
        started_again = read(member, caller=Caller(cwd=project), action="recollect").recollection
        assert started_again is not None and started_again.started
        revived = _until(member, lambda j: j.status == Status.COMPLETE, timeout=90)
        assert Path(revived.response_path).read_text().count("word") == 60
        markdown = read_council(council_id).markdown or ""
        assert (
            "## chatgpt:thinking_standard" in markdown
            and "None: every member answered." in markdown
        )
        assert _woken(project, timeout=2) == []  # the council's one wake-up was its last


def _until(job_id: str, check, timeout: float = 90.0):  # type: ignore[no-untyped-def]
    store = JobStore()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = store.load(job_id)
        if check(job):
            return job
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} never got there: {store.load(job_id).phase}")
