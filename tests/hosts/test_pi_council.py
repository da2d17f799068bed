"""`/oracle-council` in a real pi (issue 43 §1): the command starts a council through the
bridge, and the session gets one wake-up turn when every member has ended, never one per
member job."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from oraculum.jobs.councils import CouncilStore
from oraculum.jobs.store import JobStore

from .conftest import StartModel
from .host_tools import HostTools
from .pi_bridge_host import PiBridgeHost
from .scripted_model import Reply, message_text
from .test_pi_bridge import SCANS_S

pytestmark = [pytest.mark.hosts, pytest.mark.slow]


async def test_oracle_council_wakes_the_session_once(
    host_tools: HostTools,
    project: Path,
    tmp_path: Path,
    oraculum_env: dict[str, str],
    scripted_model: StartModel,
) -> None:
    host = PiBridgeHost(tools=host_tools, root=tmp_path / "pi", project=project, session="pi-cl")
    model = await scripted_model([Reply("Read the council.")])
    await host.install(model.base_url)
    async with host.rpc() as pi:
        command = "/oracle-council test:instant,test:thinking_heavy Which sort is right?"
        await pi.send({"type": "prompt", "message": command})
        await pi.until(lambda: len(pi.notices()) >= 1, "the council's notice")
        await pi.until(lambda: len(model.requests) == 1, "the council's wake-up turn")
        await asyncio.sleep(SCANS_S)  # room for a (wrong) second wake-up turn

    assert len(model.requests) == 1 and model.overruns == 0
    started = pi.notices()[0]
    (council_dir,) = CouncilStore().root.iterdir()
    council_id = council_dir.name
    assert council_id in started and "as a new message in this session, once" in started
    told = "\n".join(message_text(m.get("content")) for m in model.requests[0]["messages"])
    assert told.count(f"council task {council_id}") == 1, told
    assert "2 of 2 members answered" in told and "Oracle job" not in told
    assert all(JobStore().load(i).wakeup_attempt_count == 0 for i in JobStore().list_ids())
