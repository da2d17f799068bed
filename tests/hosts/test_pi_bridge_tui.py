"""The pi package in pi's interactive TUI (a real pi on a pseudo-terminal, issue 19): `/oracle`
stays the visible message while the dispatch workflow reaches the model hidden, the oracle
tools answer, and the footer shows readiness."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import StartModel
from .host_tools import HostTools
from .pi_bridge_host import PiBridgeHost, bridge_results
from .scripted_model import Reply, message_text
from .test_pi_bridge import PREFLIGHT, PROMPT

pytestmark = [pytest.mark.hosts, pytest.mark.slow]


@pytest.fixture
def pi_bridge(host_tools: HostTools, project: Path, tmp_path: Path) -> PiBridgeHost:
    return PiBridgeHost(tools=host_tools, root=tmp_path / "pi", project=project, session="pi-t")


async def test_tui_oracle_sends_the_workflow_hidden(
    pi_bridge: PiBridgeHost, oraculum_env: dict[str, str], scripted_model: StartModel
) -> None:
    model = await scripted_model([PREFLIGHT, Reply("Preflight done.")])
    await pi_bridge.install(model.base_url)
    async with pi_bridge.tui() as pi:
        await pi.until(lambda: "oracle: auth needed" in pi.text, "the footer")
        pi.type(f"/oracle {PROMPT}")
        await pi.until(lambda: f"/oracle {PROMPT}" in pi.text, "the typed request")
        pi.type("\r")
        await pi.until(lambda: "Preflight done." in pi.text, "the run")
        screen = pi.text

    users = [message_text(m.get("content")) for m in model.requests[0]["messages"][1:]]
    assert users[0] == f"/oracle {PROMPT}"  # the compact request is the user's message
    assert "Call oracle_preflight immediately" in users[1] and PROMPT in users[1]
    assert "Follow this workflow exactly" not in screen  # shown to the model only
    assert bridge_results(model, "oracle_preflight")[0].startswith("Oracle preflight ready")
    assert model.overruns == 0
