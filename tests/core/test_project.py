"""Project root detection and ids on real directory trees."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from oraculum.core.errors import OracleError
from oraculum.core.project import find_project_root, project_id
from oraculum.core.session import resolve_session_id, validate_session_id


def test_git_top_level_is_the_root(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "pyproject.toml").write_text("")
    deep = repo / "src" / "pkg"
    deep.mkdir(parents=True)
    assert find_project_root(deep) == repo.resolve()


def test_monorepo_package_maps_to_the_repository(tmp_path: Path) -> None:
    repo = tmp_path / "mono"
    (repo / ".git").mkdir(parents=True)
    (repo / "package.json").write_text("{}")
    pkg = repo / "packages" / "web"
    pkg.mkdir(parents=True)
    (pkg / "package.json").write_text("{}")
    assert find_project_root(pkg) == repo.resolve()


def test_marker_below_unrelated_git_ancestor_wins(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".git").mkdir(parents=True)  # a dotfiles repository, not a project
    project = home / "code" / "tool"
    (project / "src").mkdir(parents=True)
    (project / "Cargo.toml").write_text("")
    assert find_project_root(project / "src") == project.resolve()


def test_no_git_no_marker_is_the_directory_itself(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert find_project_root(plain) == plain.resolve()


def test_marker_without_git(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / "a" / "b").mkdir(parents=True)
    (project / "go.mod").write_text("")
    assert find_project_root(project / "a" / "b") == project.resolve()


def test_project_id_is_stable_across_symlinks(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    os.symlink(real, link)
    assert project_id(real) == project_id(link)
    assert project_id(real) != project_id(tmp_path)
    assert len(project_id(real)) == 16


@pytest.mark.parametrize("good", ["s1", "claude-code:abc.123", "a" * 128, "x@host+1=2"])
def test_valid_session_ids(good: str) -> None:
    assert validate_session_id(good) == good


@pytest.mark.parametrize("bad", ["", "../x", "/etc", "a" * 129, "has space", "nul\x00", "-lead"])
def test_invalid_session_ids(bad: str) -> None:
    with pytest.raises(OracleError) as info:
        validate_session_id(bad)
    assert info.value.code == "invalid_session_id"


def test_session_required_for_submit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ORACULUM_SESSION", raising=False)
    with pytest.raises(OracleError) as info:
        resolve_session_id(None, action="submit a job")
    assert info.value.code == "persisted_session_required"
    monkeypatch.setenv("ORACULUM_SESSION", "from-env")
    assert resolve_session_id(None, action="submit") == "from-env"
    assert resolve_session_id("explicit", action="submit") == "explicit"
