"""Fixtures for archive tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from oraculum.archive.native import native

from .support import use_python_twins


@pytest.fixture(params=["git", "walk"])
def mode(request: pytest.FixtureRequest) -> str:
    """Run a selection test both inside a git work tree and on a plain directory."""
    return str(request.param)


@pytest.fixture(autouse=True)
def _no_global_git_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A developer's global excludesFile must not change what the tests see.
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


@pytest.fixture(params=["c", "python"])
def hot_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test with the C extension's hot path, then with its pure-Python twins."""
    if request.param == "python":
        use_python_twins(monkeypatch)
    elif native is None:
        pytest.skip("the C extension is not built")
    return str(request.param)
