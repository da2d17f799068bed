"""Fixtures shared by every test package."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def oraculum_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point every oraculum location (jobs, state, config, data) into a fresh temp tree."""
    home = tmp_path / "oraculum-home"
    for name, sub in (
        ("ORACULUM_JOBS_DIR", "jobs"),
        ("ORACULUM_STATE_DIR", "state"),
        ("ORACULUM_CONFIG_DIR", "config"),
        ("ORACULUM_DATA_DIR", "data"),
    ):
        monkeypatch.setenv(name, str(home / sub))
    monkeypatch.delenv("ORACULUM_SESSION", raising=False)
    yield home
