"""Issue 38 §7's commands as a person types them (real processes): carrying a seed between
machines (`auth --export/--import-seed`) and pointing jobs at a simulator (`simulator use`).
Their full paths through real Chromium are in tests/auth/test_seed_transfer.py and
tests/simulator/test_simulator_use.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from homes import run_cli


@pytest.mark.parametrize(
    "args",
    [
        ("auth", "--export", "a.seed", "--rollback"),
        ("auth", "--export", "a.seed", "--import-seed", "b.seed"),
        ("auth", "--manual", "--import-seed", "b.seed"),
    ],
)
def test_carrying_a_seed_excludes_every_other_auth_mode(
    project: Path, args: tuple[str, ...]
) -> None:
    code, refused = run_cli(*args, cwd=project)
    assert code == 2 and refused["error"]["code"] == "invalid_argument", refused
    assert not (project / "a.seed").exists()


def test_exporting_without_a_signed_in_seed_says_sign_in_first(project: Path) -> None:
    code, refused = run_cli("auth", "grok", "--export", "grok.seed", cwd=project)
    assert refused["error"]["code"] == "auth_seed_profile_unauthenticated", refused
    assert code == 4 and "oraculum auth grok" in refused["error"]["suggestedNextStep"]
    assert not (project / "grok.seed").exists()


def test_importing_something_else_changes_nothing(project: Path) -> None:
    (project / "notes.seed").write_text("not a bundle\n")
    code, refused = run_cli("auth", "--import-seed", "notes.seed", cwd=project)
    assert code == 2 and refused["error"]["code"] == "auth_bundle_invalid", refused


@pytest.mark.parametrize(
    "args", [("simulator", "use"), ("simulator", "use", "http://127.0.0.1:9", "--off")]
)
def test_simulator_use_takes_a_url_or_off(project: Path, args: tuple[str, ...]) -> None:
    code, refused = run_cli(*args, cwd=project)
    assert code == 2 and refused["error"]["code"] == "invalid_argument", refused


def test_simulator_use_off_with_nothing_to_undo(project: Path) -> None:
    code, refused = run_cli("simulator", "use", "--off", cwd=project)
    assert code == 2 and "not pointed at a simulator" in refused["error"]["message"], refused
