"""Fixtures of the host tests: the pinned host tools, the scripted model, a configured pi."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from homes import write_fast_config

from .host_tools import HostTools, HostUnavailable, RegistryUnreachable, ensure_installed
from .pi_host import ORACULUM_VARIABLES, PiHost
from .scripted_model import ScriptedModel, Step

# The background wake-up scan of the MCP server: fast, so a test waits fractions of a second.
POLL_MS = 200
# For tests that freeze a worker (`HeldWorker`): a frozen worker does not heartbeat, and
# reconcile must not call it lost meanwhile.
HOLDABLE = {
    "poller": {"intervalMs": POLL_MS},
    "worker": {"staleHeartbeatMs": 120_000, "noWorkerGraceMs": 120_000},
}


@pytest.fixture(scope="session")
def host_tools() -> HostTools:
    """pi and the MCP Inspector at their pinned versions (installed once per lockfile)."""
    try:
        return ensure_installed()
    except RegistryUnreachable as exc:
        pytest.skip(f"host tools cannot be installed: {exc}")


@pytest.fixture
def oraculum_env(project: Path) -> dict[str, str]:
    """The private test home's ORACULUM_* variables, with a fast wake-up scan."""
    write_fast_config({"poller": {"intervalMs": POLL_MS}})
    return {name: os.environ[name] for name in ORACULUM_VARIABLES}


StartModel = Callable[..., Awaitable[ScriptedModel]]


@pytest.fixture
async def scripted_model() -> AsyncIterator[StartModel]:
    """Start a scripted model endpoint with the given steps (``options``: ScriptedModel's)."""
    started: list[ScriptedModel] = []

    async def start(steps: list[Step], **options: Any) -> ScriptedModel:
        model = ScriptedModel(steps, **options)
        await model.start()
        started.append(model)
        return model

    yield start
    for model in started:
        await model.stop()


@pytest.fixture
def pi_host(host_tools: HostTools, project: Path, tmp_path: Path) -> PiHost:
    return PiHost(tools=host_tools, root=tmp_path / "pi", project=project, session="pi-hosts-1")


@pytest.fixture
def native_host(host_tools: HostTools) -> Callable[[str], Path]:
    """A native host's binary (`claude`, `codex`, `opencode`); its tests skip, saying why,
    only when none is installed for this machine."""

    def binary(name: str) -> Path:
        try:
            return host_tools.native(name)
        except HostUnavailable as exc:
            pytest.skip(f"{name} cannot be installed here: {exc}")

    return binary
