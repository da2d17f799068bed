"""Paths like every shell (issue 38 item 9): archive inputs are relative to the current
directory (`.` in a subdirectory is that subdirectory, `../README.md` inside the project is
accepted) and the archive keeps project-relative member names; an input outside the project is
still refused. Through the real CLI, members checked by listing the archives."""

from __future__ import annotations

from pathlib import Path

from homes import complete, run_cli
from oraculum.jobs.store import JobStore
from oraculum.simulator.uploads import archive_members


def _tree(project: Path) -> Path:
    (project / "README.md").write_text("# demo\n")
    (project / "src" / "pkg").mkdir()
    (project / "src" / "pkg" / "mod.py").write_text("x = 1\n")
    return project / "src"


def _members(path: str) -> set[str]:
    found, error = archive_members(Path(path).name, Path(path).read_bytes())
    assert error is None and found is not None, error
    return {member.name for member in found if member.kind == "file"}


def test_archive_list_resolves_against_the_current_directory(project: Path) -> None:
    sub = _tree(project)
    code, listed = run_cli("archive", "--list", ".", "../README.md", cwd=sub)
    assert code == 0, listed
    paths = {entry["path"] for entry in listed["entries"]}
    assert paths == {"src/app.py", "src/pkg/mod.py", "README.md"}
    code, deeper = run_cli("archive", "--list", "mod.py", cwd=sub / "pkg")
    assert code == 0 and [e["path"] for e in deeper["entries"]] == ["src/pkg/mod.py"], deeper
    # From the root `.` is still the whole project.
    code, whole = run_cli("archive", "--list", ".", cwd=project)
    assert code == 0 and "pyproject.toml" in {e["path"] for e in whole["entries"]}


def test_archive_out_keeps_project_relative_member_names(project: Path) -> None:
    sub = _tree(project)
    out = project.parent / "preview.tar.zst"
    code, built = run_cli("archive", "--out", str(out), "pkg", "../README.md", cwd=sub)
    assert code == 0, built
    assert _members(built["path"]) == {"src/pkg/mod.py", "README.md"}


def test_submit_from_a_subdirectory_archives_what_the_shell_names(project: Path) -> None:
    sub = _tree(project)
    code, made = run_cli(
        "submit",
        "-p",
        "q",
        "--provider",
        "test",
        "--session",
        "paths",
        ".",
        "../README.md",
        cwd=sub,
    )
    assert code == 0, made
    job = complete(JobStore().load(made["job"]["id"]))
    assert job.project_root == str(project)
    assert _members(job.archive_path) == {"src/app.py", "src/pkg/mod.py", "README.md"}


def test_an_input_outside_the_project_is_still_refused(project: Path) -> None:
    sub = _tree(project)
    (project.parent / "secret.txt").write_text("no\n")
    for args in (["archive", "--list", "../../secret.txt"], ["archive", "--list", "../.."]):
        code, refused = run_cli(*args, cwd=sub)
        assert code == 2 and refused["error"]["code"] == "archive_input_outside_project", refused
    code, refused = run_cli(
        "submit",
        "-p",
        "q",
        "--provider",
        "test",
        "--session",
        "paths",
        "../../secret.txt",
        cwd=sub,
    )
    assert refused["error"]["code"] == "archive_input_outside_project", refused
