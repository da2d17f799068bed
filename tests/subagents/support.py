"""Helpers of the subagent and codex_search tests."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def install_fake_codex(bin_dir: Path) -> Path:
    """An executable `codex_search` in ``bin_dir`` running fake_codex.py with this Python."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    script = bin_dir / "codex_search"
    script.write_text(f"#!{sys.executable}\n" + (HERE / "fake_codex.py").read_text())
    script.chmod(0o700)
    return script


def codex_records(records: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(records.glob("*.json"))]


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def path_with(bin_dir: Path) -> str:
    return f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"


async def eventually(check: Callable[[], bool], timeout_s: float = 30.0) -> None:
    """Wait until ``check()`` holds (a readiness wait, not a speed assertion)."""
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{check} never held within {timeout_s:g}s")
        await asyncio.sleep(0.05)
