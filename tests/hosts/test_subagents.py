"""Subagents on the real pinned pi (RPC mode) against the scripted endpoint: start, continue,
steer mid-turn, interrupt, the thirteenth child refused, one pong per turn and never two."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
import pytest

from oraculum.core.errors import OracleError
from oraculum.core.project import project_id
from oraculum.subagents import SubagentRegistry, launch_spec, routing
from oraculum.subagents.pi_rpc import PiRpcBackend
from oraculum.tasks import Notice, NoticeStore, Owner

from .conftest import StartModel
from .host_tools import HostTools
from .scripted_model import Reply, ScriptedModel, Step, ToolCall
from .subagent_host import MODEL, Gate, pi_children, pi_environment, until

pytestmark = [pytest.mark.hosts, pytest.mark.slow]

SESSION = "orchestrator-1"


@pytest.fixture
async def world(
    host_tools: HostTools,
    scripted_model: StartModel,
    project: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[[list[Step]], Any]:
    """Start the scripted model with ``steps``; pi on PATH pointed at it; a fresh registry."""

    async def make(steps: list[Step]) -> tuple[ScriptedModel, SubagentRegistry, Owner]:
        model = await scripted_model(steps)
        for name, value in pi_environment(host_tools, tmp_path / "pi", model.base_url).items():
            monkeypatch.setenv(name, value)
        return model, SubagentRegistry(PiRpcBackend()), Owner(project_id(project), SESSION)

    return make


def pongs(project: Path) -> list[Notice]:
    return [n for n in NoticeStore().notices(project_id(project)) if n.kind == "subagent"]


def spec(project: Path, **kwargs: Any) -> Any:
    return launch_spec(root=project, tools=kwargs.pop("tools", None), **kwargs)


async def test_start_then_continue_one_pong_each_and_the_session_stays(
    world: Any, project: Path
) -> None:
    model, registry, owner = await world([Reply("first answer"), Reply("second answer")])
    started = await asyncio.to_thread(
        registry.start,
        owner,
        "Say hello",
        spec(project, name="greeter"),
        routing(MODEL, "low"),
        wait=False,
    )
    started = started.to_json()
    assert started["id"] == "1" and started["state"] == "running" and started["taskId"]
    await until(lambda: len(pongs(project)) == 1)
    [pong] = pongs(project)
    assert pong.owner == owner and pong.data["status"] == "completed" and pong.data["ok"]
    assert "first answer" in pong.text and "subagent 1 (greeter) completed" in pong.text
    session = Path(started["session"])
    assert session.is_file()  # the child has exited; its conversation stays

    again = await asyncio.to_thread(
        registry.continue_, owner, "1", "And now?", routing(None, None), wait=False
    )
    again = again.to_json()
    assert again["turns"] == 2 and again["session"] == str(session)
    await until(lambda: len(pongs(project)) == 2)
    second = next(p for p in pongs(project) if p.id != pong.id)
    assert "second answer" in second.text and second.data["turn"] == 2
    # The continuation is the same conversation: the model saw the first exchange again.
    texts = json.dumps(model.requests[-1]["messages"])
    assert "Say hello" in texts and "first answer" in texts and "And now?" in texts
    assert session.is_file()
    [listed] = registry.list(owner).subagents
    assert listed["state"] == "idle" and listed["lastStatus"] == "completed"
    assert listed["routing"] == {"model": None, "reasoning": None}


async def test_blocking_start_returns_the_result_and_posts_no_pong(
    world: Any, project: Path
) -> None:
    _, registry, owner = await world([Reply("waited answer")])
    done = await asyncio.to_thread(
        registry.start, owner, "Wait for me", spec(project), routing(None, None), wait=True
    )
    done = done.to_json()
    assert done["result"]["ok"] is True and "waited answer" in done["result"]["text"]
    assert done["state"] == "idle"
    assert pongs(project) == []


async def test_steer_reaches_the_active_turn(world: Any, project: Path) -> None:
    (project / "notes.txt").write_text("the notes")
    gate = Gate()
    model, registry, owner = await world(
        [ToolCall("read", {"path": "notes.txt"}, before=gate, prefix=""), Reply("steered done")]
    )
    await asyncio.to_thread(
        registry.start, owner, "Read the notes", spec(project), routing(None, None), wait=False
    )
    await until(lambda: len(model.requests) == 1)  # the turn is mid-flight, held
    steered = await asyncio.to_thread(registry.steer, owner, "1", "STEER: only the title")
    assert steered.to_json() == {"id": "1", "steered": True}
    with pytest.raises(OracleError) as busy:  # continue refuses an active conversation
        registry.continue_(owner, "1", "more", routing(None, None), wait=False)
    assert busy.value.code == "subagent_busy"
    gate.open()
    await until(lambda: len(pongs(project)) == 1)
    assert "steered done" in pongs(project)[0].text
    last_user = [m for m in model.requests[-1]["messages"] if m["role"] == "user"][-1]
    assert "STEER: only the title" in json.dumps(last_user)
    with pytest.raises(OracleError) as idle:
        registry.steer(owner, "1", "too late")
    assert idle.value.code == "subagent_idle"


async def test_interrupt_stops_the_turn_with_one_interruption_pong(
    world: Any, project: Path
) -> None:
    gate = Gate()
    model, registry, owner = await world([Reply("never seen", before=gate), Reply("after")])
    await asyncio.to_thread(
        registry.start, owner, "Take forever", spec(project), routing(None, None), wait=False
    )
    await until(lambda: len(model.requests) == 1)
    stopped = await asyncio.to_thread(registry.interrupt, owner, "1")
    assert stopped.to_json() == {"id": "1", "interrupted": True}
    await until(lambda: len(pongs(project)) == 1)
    gate.open()  # let the held answer go to the closed connection
    assert pi_children() == []  # the interrupted turn's child has exited
    [pong] = pongs(project)
    assert pong.data["status"] == "interrupted" and pong.data["errorCode"] == "subagent_interrupted"
    assert "never seen" not in pong.text
    assert registry.list(owner).subagents[0]["lastStatus"] == "interrupted"
    # The conversation can go on after an interruption.
    again = await asyncio.to_thread(
        registry.continue_, owner, "1", "Now quickly", routing(None, None), wait=True
    )
    again = again.to_json()
    assert again["result"]["ok"] and "after" in again["result"]["text"]
    assert len(pongs(project)) == 1


async def test_the_thirteenth_child_is_refused_and_each_turn_pongs_once(
    world: Any, project: Path
) -> None:
    gate = Gate()
    model, registry, owner = await world([Reply(f"done {n}", before=gate) for n in range(12)])
    for n in range(12):
        started = await asyncio.to_thread(
            registry.start, owner, f"task {n}", spec(project), routing(None, None), wait=False
        )
        assert started.to_json()["id"] == str(n + 1)
    with pytest.raises(OracleError) as refused:
        registry.start(owner, "one more", spec(project), routing(None, None), wait=False)
    assert refused.value.code == "background_limit"
    assert refused.value.details["limit"] == 12
    assert len(registry.list(owner).subagents) == 12  # nothing was launched for the refused one
    await until(lambda: len(model.requests) == 12)
    gate.open()
    await until(lambda: len(pongs(project)) == 12, timeout_s=120)
    await until(lambda: registry.tasks.running(owner) == [])
    found = pongs(project)
    assert len(found) == 12
    assert sorted(int(p.data["subagentId"]) for p in found) == list(range(1, 13))
    assert {p.data["status"] for p in found} == {"completed"}


async def test_session_end_interrupts_active_turns_and_stops_children(
    world: Any, project: Path
) -> None:
    gate = Gate()
    model, registry, owner = await world([Reply("never", before=gate)])
    await asyncio.to_thread(
        registry.start, owner, "Hold on", spec(project), routing(None, None), wait=False
    )
    await until(lambda: len(model.requests) == 1)
    [child] = pi_children()
    await asyncio.to_thread(registry.shutdown_owner, owner)
    gate.open()
    assert not child.is_running() or child.status() == psutil.STATUS_ZOMBIE
    assert pi_children() == []
    [pong] = pongs(project)
    assert pong.data["status"] == "interrupted" and "owning session ended" in pong.text
    assert registry.list(owner).subagents[0]["state"] == "idle"
    assert registry.tasks.running(owner) == []


async def test_refusals_before_launch(world: Any, project: Path, tmp_path: Path) -> None:
    _, registry, owner = await world([])
    with pytest.raises(OracleError) as bare:
        routing("gpt-5", None)
    assert bare.value.code == "invalid_argument" and "provider/model" in bare.value.message
    with pytest.raises(OracleError) as level:
        routing("openai/gpt-5", "extreme")
    assert level.value.allowed_values is not None and "high" in level.value.allowed_values
    with pytest.raises(OracleError) as missing:
        registry.continue_(owner, "7", "x", routing(None, None), wait=False)
    assert missing.value.code == "subagent_not_found"
    with pytest.raises(OracleError) as cwd:
        spec(project, cwd="no/such/dir")
    assert cwd.value.code == "invalid_argument"
    assert registry.list(owner).subagents == []


async def test_a_child_that_dies_mid_turn_yields_one_failure_pong(
    world: Any, project: Path
) -> None:
    gate = Gate()
    model, registry, owner = await world([Reply("never", before=gate)])
    await asyncio.to_thread(
        registry.start, owner, "Crash", spec(project), routing(None, None), wait=False
    )
    await until(lambda: len(model.requests) == 1)
    [child] = pi_children()
    child.kill()
    await until(lambda: len(pongs(project)) == 1)
    gate.open()
    [pong] = pongs(project)
    assert pong.data["status"] == "failed" and pong.data["errorCode"] == "subagent_failed"
    assert "pi exited" in pong.text
    assert registry.list(owner).subagents[0]["lastStatus"] == "failed"
