"""Fixtures shared by every test package."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from homes import write_fast_config
from oraculum.core.paths import private_home_environment


@pytest.fixture
def oraculum_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point every oraculum location (jobs, state, config, data) into a fresh temp tree."""
    home = tmp_path / "oraculum-home"
    for name, value in private_home_environment(home).items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("ORACULUM_SESSION", raising=False)
    yield home


@pytest.fixture
def project(tmp_path: Path, oraculum_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A small project (the current directory) in a fresh home with fast engine timings."""
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (root / "src" / "app.py").write_text("print('hello')\n")
    write_fast_config()
    monkeypatch.chdir(root)
    return root
