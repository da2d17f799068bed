"""Fixtures for archive tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(params=["git", "walk"])
def mode(request: pytest.FixtureRequest) -> str:
    """Run a selection test both inside a git work tree and on a plain directory."""
    return str(request.param)


@pytest.fixture(autouse=True)
def _no_global_git_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A developer's global excludesFile must not change what the tests see.
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
