"""The pinned pi as `pi` on PATH for subagent tests, configured for the scripted endpoint.

A private bin directory holds `pi` (a link to the pinned CLI, whose `#!/usr/bin/env node` line
then finds the pinned `node` linked beside it). The environment the test process hands its
children gets that directory first on PATH, a private HOME and a pi agent directory whose
`models.json` names the scripted endpoint, and no network activity of pi's own.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from pathlib import Path

import psutil

from .host_tools import HostTools
from .pi_host import PROVIDER, models_config
from .scripted_model import MODEL_ID

__all__ = ["MODEL", "Gate", "pi_children", "pi_environment", "until"]

MODEL = f"{PROVIDER}/{MODEL_ID}"


def pi_environment(tools: HostTools, root: Path, base_url: str) -> dict[str, str]:
    """Variables to set for the children (PATH, HOME, pi's agent dir and quiet flags)."""
    bin_dir = root / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    for name, target in (("pi", tools.pi_cli), ("node", tools.node)):
        link = bin_dir / name
        if not link.exists():
            link.symlink_to(target)
    agent_dir = root / "agent"
    agent_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    models = agent_dir / "models.json"
    models.write_text(json.dumps(models_config(base_url), indent=2))
    models.chmod(0o600)
    settings = agent_dir / "settings.json"  # the scripted model is the default model
    settings.write_text(json.dumps({"defaultProvider": PROVIDER, "defaultModel": MODEL_ID}))
    home = root / "home"
    home.mkdir(exist_ok=True, mode=0o700)
    return {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(home),
        "PI_CODING_AGENT_DIR": str(agent_dir),
        "PI_OFFLINE": "1",
        "PI_SKIP_VERSION_CHECK": "1",
        "PI_TELEMETRY": "0",
    }


class Gate:
    """Holds the scripted model's answer until the test opens it (a turn stays active)."""

    def __init__(self) -> None:
        self.event = asyncio.Event()

    async def __call__(self) -> None:
        await self.event.wait()

    def open(self) -> None:
        self.event.set()


def pi_children() -> list[psutil.Process]:
    """The pi processes this test process started (they lead their own groups)."""
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if Path(child.exe()).name == "node":  # pi retitles itself; its binary stays
                found.append(child)
        except psutil.Error:
            continue
    return found


async def until(check: Callable[[], bool], timeout_s: float = 60.0) -> None:
    """Wait for a state to be reached (readiness, not speed)."""
    for _ in range(int(timeout_s / 0.05)):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"never reached: {check}")
