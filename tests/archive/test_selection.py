"""Input resolution and selection on real trees, inside git and on plain directories.

Reference acceptance scenarios 56, 57, 58, 60, 61, 62, plus the credential rule, gitignores,
symlink escapes, special files and non-UTF-8 names.
"""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import pytest

from oraculum.archive import resolve_inputs, select_entries
from oraculum.core.errors import OracleError

from .support import GIT, git_init, link, write


def _paths(root: Path, inputs: list[str]) -> list[str]:
    return [e.path for e in select_entries(root, inputs).entries]


def _fixture_56(root: Path, mode: str) -> None:
    for rel in (
        "src/build/keeper.ts",
        "src/regular.ts",
        ".env.example",
        "build/root-output.js",
        "dist/bundle.js",
        "node_modules/pkg/index.js",
        "packages/app/node_modules/dep/index.js",
        "crates/core/target/debug/core",
        "packages/app/.yarn/cache/z.zip",
        ".env",
        ".npmrc",
        ".scratchpad.md",
        "dev.sqlite",
        ".pi/notes.md",
        ".oracle-context/bundle.txt",
        ".cursor/rules.md",
        "secrets/token.txt",
        "secrets/.env",
        "secrets/deploy.pem",
        "secrets/id_rsa",
        "packages/app/secrets/nested.txt",
        ".secrets/hidden.txt",
        "linked/readme.md",
    ):
        write(root, rel, rel.encode())
    # `.npmrc` is excluded for what it holds (a token line), not for its name.
    write(root, ".npmrc", b"//registry.npmjs.org/:_authToken=npm_secret\n")
    link(root, "coverage", "src")
    link(root, "linked/node_modules", "../src")
    if mode == "git":
        git_init(root)


def test_scenario_56_default_exclusions_on_whole_repo(tmp_path: Path, mode: str) -> None:
    _fixture_56(tmp_path, mode)
    sel = select_entries(tmp_path, ["."])
    assert sel.source == mode
    assert sel.whole_repo
    assert [e.path for e in sel.entries] == [
        ".env.example",
        "linked/readme.md",
        "src/build/keeper.ts",
        "src/regular.ts",
    ]
    reasons = {x.path: x.reason for x in sel.excluded}
    for dropped in (
        "build",
        "dist",
        "node_modules",
        "packages/app/node_modules",
        "crates/core/target",
        "packages/app/.yarn/cache",
        ".env",
        ".npmrc",
        ".scratchpad.md",
        "dev.sqlite",
        ".pi",
        ".oracle-context",
        ".cursor",
        "secrets",
        "packages/app/secrets",
        ".secrets",
        "coverage",
        "linked/node_modules",
    ):
        assert dropped in reasons, dropped
    summary = sel.excluded_summary()
    assert sum(group["paths"] for group in summary) == len(sel.excluded)


@pytest.mark.parametrize(
    ("inputs", "expected"),
    [
        (["src"], ["src/build/keeper.ts", "src/regular.ts"]),
        (["build"], ["build/root-output.js"]),
        (["node_modules"], ["node_modules/pkg/index.js"]),
        (["packages/app/.yarn/cache"], ["packages/app/.yarn/cache/z.zip"]),
        ([".pi"], [".pi/notes.md"]),
        ([".oracle-context"], [".oracle-context/bundle.txt"]),
        ([".cursor"], [".cursor/rules.md"]),
        (["build/root-output.js"], ["build/root-output.js"]),
        ([".env"], [".env"]),
        ([".scratchpad.md"], [".scratchpad.md"]),
        (["secrets"], ["secrets/token.txt"]),
        (["packages/app/secrets"], ["packages/app/secrets/nested.txt"]),
        ([".secrets"], [".secrets/hidden.txt"]),
        (["coverage"], ["coverage"]),
        (["linked/node_modules"], ["linked/node_modules"]),
    ],
)
def test_scenario_57_explicit_selections_preserved(
    tmp_path: Path, mode: str, inputs: list[str], expected: list[str]
) -> None:
    _fixture_56(tmp_path, mode)
    sel = select_entries(tmp_path, inputs)
    assert [e.path for e in sel.entries] == expected
    if inputs[0] in ("coverage", "linked/node_modules"):
        # A named symlink is one link entry: never followed into its target.
        assert [e.kind for e in sel.entries] == ["symlink"]


def test_credentials_inside_explicit_directory_stay_out(tmp_path: Path, mode: str) -> None:
    _fixture_56(tmp_path, mode)
    sel = select_entries(tmp_path, ["secrets"])
    assert [e.path for e in sel.entries] == ["secrets/token.txt"]
    assert {x.path for x in sel.excluded if x.reason == "credential file"} == {
        "secrets/.env",
        "secrets/deploy.pem",
        "secrets/id_rsa",
    }
    # Named themselves, they are included.
    assert _paths(tmp_path, ["secrets/.env", "secrets/id_rsa"]) == [
        "secrets/.env",
        "secrets/id_rsa",
    ]


def test_explicit_excluded_dir_keeps_excluded_subdirs_but_not_credentials(tmp_path: Path) -> None:
    write(tmp_path, "node_modules/pkg/index.js")
    write(tmp_path, "node_modules/pkg/node_modules/inner/x.js")
    write(tmp_path, "node_modules/pkg/.npmrc", b"//registry/:_authToken=secret")
    write(tmp_path, "node_modules/pkg/build/out.js")
    assert _paths(tmp_path, ["node_modules"]) == [
        "node_modules/pkg/build/out.js",
        "node_modules/pkg/index.js",
        "node_modules/pkg/node_modules/inner/x.js",
    ]


def test_scenario_58_only_root_build_is_empty(tmp_path: Path, mode: str) -> None:
    write(tmp_path, "build/a.js")
    write(tmp_path, "build/sub/b.js")
    if mode == "git":
        git_init(tmp_path)
    sel = select_entries(tmp_path, ["."])
    assert sel.entries == []
    assert [x.path for x in sel.excluded] == ["build"]


def test_scenario_60_input_validation(tmp_path: Path) -> None:
    write(tmp_path, "extensions/a.ts")
    for raw, code in (
        ("", "archive_input_blank"),
        ("   ", "archive_input_blank"),
        (" . ", "archive_input_whole_repo_sentinel_invalid"),
        ("./", "archive_input_whole_repo_sentinel_invalid"),
        ("extensions/..", "archive_input_whole_repo_sentinel_invalid"),
        (str(tmp_path), "archive_input_whole_repo_sentinel_invalid"),
        ("../elsewhere", "archive_input_outside_project"),
        ("/etc/hostname", "archive_input_outside_project"),
    ):
        with pytest.raises(OracleError) as info:
            resolve_inputs(tmp_path, [raw])
        assert info.value.code == code, raw
    with pytest.raises(OracleError) as info:
        resolve_inputs(tmp_path, [])
    assert info.value.code == "archive_input_required"
    assert [r.kind for r in resolve_inputs(tmp_path, ["."])] == ["root"]
    assert [r.rel for r in resolve_inputs(tmp_path, [str(tmp_path / "extensions")])] == [
        "extensions"
    ]


def test_missing_input_names_the_project_root(tmp_path: Path) -> None:
    with pytest.raises(OracleError) as info:
        resolve_inputs(tmp_path, ["nope.txt"])
    assert info.value.code == "archive_input_missing"
    assert str(tmp_path) in info.value.message
    assert "nope.txt" in info.value.message


def test_scenario_61_leading_space_name_verbatim(tmp_path: Path, mode: str) -> None:
    write(tmp_path, " leading.txt", b"space")
    write(tmp_path, "leading.txt", b"plain")
    if mode == "git":
        git_init(tmp_path)
    assert _paths(tmp_path, [" leading.txt"]) == [" leading.txt"]
    assert _paths(tmp_path, ["."]) == [" leading.txt", "leading.txt"]


def test_scenario_62_symlinks_inside_accepted_escapes_rejected(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    outside = tmp_path / "outside"
    write(outside, "secret.txt", b"outside")
    write(root, "src/a.txt", b"inside")
    link(root, "inner", "src/a.txt")
    link(root, "innerdir", "src")
    link(root, "out", str(outside))
    link(root, "outfile", str(outside / "secret.txt"))
    assert [(e.path, e.kind, e.target) for e in select_entries(root, ["inner"]).entries] == [
        ("inner", "symlink", "src/a.txt")
    ]
    # A path through an in-repo directory link is archived under its real location.
    assert _paths(root, ["innerdir/a.txt"]) == ["src/a.txt"]
    for raw in ("out", "out/secret.txt", "outfile"):
        with pytest.raises(OracleError) as info:
            resolve_inputs(root, [raw])
        assert info.value.code == "archive_input_symlink_escape"
        assert "without symlink escapes" in info.value.message


def test_discovered_escaping_symlink_is_skipped_and_reported(tmp_path: Path, mode: str) -> None:
    root = tmp_path / "repo"
    write(tmp_path, "outside/secret.txt")
    write(root, "src/a.txt")
    link(root, "src/escape", "../../outside/secret.txt")
    link(root, "src/abs-escape", str(tmp_path / "outside"))
    link(root, "src/ok", "a.txt")
    link(root, "src/abs-inside", str(root / "src" / "a.txt"))
    link(root, "src/dangling", "missing.txt")
    if mode == "git":
        git_init(root)
    sel = select_entries(root, ["."])
    assert {e.path: e.target for e in sel.entries if e.kind == "symlink"} == {
        "src/ok": "a.txt",
        "src/abs-inside": "a.txt",  # absolute targets inside the root become relative
        "src/dangling": "missing.txt",
    }
    skipped = {s.path: s.reason for s in sel.skipped}
    assert set(skipped) == {"src/escape", "src/abs-escape"}
    assert all("escapes the project root" in r for r in skipped.values())


def test_special_files_skipped(tmp_path: Path, mode: str) -> None:
    write(tmp_path, "src/a.txt")
    os.mkfifo(tmp_path / "src" / "pipe")
    sock_path = tmp_path / "src" / "sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(sock_path))
        if mode == "git":
            git_init(tmp_path)
        sel = select_entries(tmp_path, ["."])
        assert [e.path for e in sel.entries] == ["src/a.txt"]
        if mode == "walk":  # git itself never lists FIFOs or sockets
            assert {s.path: s.reason for s in sel.skipped} == {
                "src/pipe": "special file (FIFO)",
                "src/sock": "special file (socket)",
            }
        named = select_entries(tmp_path, ["src/pipe", "src/sock", "src/a.txt"])
        assert [e.path for e in named.entries] == ["src/a.txt"]
        assert {s.path for s in named.skipped} == {"src/pipe", "src/sock"}
    finally:
        sock.close()


def test_non_utf8_names_preserved(tmp_path: Path, mode: str) -> None:
    raw = b"src/caf\xe9-\xff.txt"
    write(tmp_path, raw, b"latin1 name")
    write(tmp_path, "src/ok.txt")
    if mode == "git":
        git_init(tmp_path)
    sel = select_entries(tmp_path, ["."])
    assert [os.fsencode(e.path) for e in sel.entries] == [raw, b"src/ok.txt"]
    # The same name given back as an input (as argv would carry it) resolves to itself.
    assert [os.fsencode(e.path) for e in select_entries(tmp_path, [os.fsdecode(raw)]).entries] == [
        raw
    ]


def test_gitignore_honoured(tmp_path: Path, mode: str) -> None:
    write(tmp_path, ".gitignore", b"*.log\n!keep.log\ngen/\n/rootonly.txt\n")
    write(tmp_path, "a.log")
    write(tmp_path, "keep.log")
    write(tmp_path, "gen/out.txt")
    write(tmp_path, "rootonly.txt")
    write(tmp_path, "sub/rootonly.txt")
    write(tmp_path, "sub/.gitignore", b"local.txt\n")
    write(tmp_path, "sub/local.txt")
    write(tmp_path, "sub/kept.txt")
    if mode == "git":
        git_init(tmp_path, commit=False)
    assert _paths(tmp_path, ["."]) == [
        ".gitignore",
        "keep.log",
        "sub/.gitignore",
        "sub/kept.txt",
        "sub/rootonly.txt",
    ]
    # Naming an ignored directory or file brings it back.
    assert _paths(tmp_path, ["gen", "a.log"]) == ["a.log", "gen/out.txt"]
    # A named directory that is not ignored keeps its ignore rules.
    assert _paths(tmp_path, ["sub"]) == ["sub/.gitignore", "sub/kept.txt", "sub/rootonly.txt"]


def test_git_tracked_but_deleted_and_untracked(tmp_path: Path) -> None:
    write(tmp_path, "tracked.txt")
    write(tmp_path, "gone.txt")
    git_init(tmp_path)
    (tmp_path / "gone.txt").unlink()
    write(tmp_path, "untracked.txt")
    write(tmp_path, "nested/code.py")
    subprocess.run([*GIT, "init", "-q"], cwd=tmp_path / "nested", check=True)  # untracked repo
    sel = select_entries(tmp_path, ["."])
    assert [e.path for e in sel.entries] == ["nested/code.py", "tracked.txt", "untracked.txt"]
    assert [(s.path, s.reason.split(" (")[0]) for s in sel.skipped] == [
        ("gone.txt", "missing on disk")
    ]


def test_project_root_below_git_toplevel(tmp_path: Path) -> None:
    write(tmp_path, "outer.txt")
    write(tmp_path, "proj/src/a.py")
    git_init(tmp_path)
    write(tmp_path, "proj/new.py")
    sel = select_entries(tmp_path / "proj", ["."])
    assert sel.source == "git"
    assert [e.path for e in sel.entries] == ["new.py", "src/a.py"]


def test_tracked_file_in_excluded_dir_stays_excluded(tmp_path: Path) -> None:
    write(tmp_path, "vendor/node_modules/x.js")
    write(tmp_path, "main.py")
    git_init(tmp_path)
    out = subprocess.run([*GIT, "ls-files"], cwd=tmp_path, capture_output=True, check=True)
    assert b"vendor/node_modules/x.js" in out.stdout
    assert _paths(tmp_path, ["."]) == ["main.py"]


def test_inputs_deduplicated_and_sorted(tmp_path: Path, mode: str) -> None:
    write(tmp_path, "b/x.txt")
    write(tmp_path, "a/y.txt")
    write(tmp_path, "node_modules/z.js")
    if mode == "git":
        git_init(tmp_path)
    sel = select_entries(tmp_path, ["b", ".", "b/x.txt", "node_modules"])
    assert [e.path for e in sel.entries] == ["a/y.txt", "b/x.txt", "node_modules/z.js"]
    assert not sel.whole_repo
    # What an explicit input brought back is not reported as excluded.
    assert all(x.path != "node_modules" for x in sel.excluded)


def test_project_ignored_by_enclosing_repo_is_walked(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", b"*\n")  # a $HOME dotfiles repository ignoring everything
    git_init(tmp_path, commit=False)
    write(tmp_path, "proj/.gitignore", b"*.log\n")
    write(tmp_path, "proj/main.py")
    write(tmp_path, "proj/debug.log")
    sel = select_entries(tmp_path / "proj", ["."])
    assert sel.source == "walk"
    assert [e.path for e in sel.entries] == [".gitignore", "main.py"]


def _order_tree(root: Path) -> list[str]:
    """Names whose byte order differs from a per-directory walk: '-' and '.' sort before '/'."""
    names = [
        "a-b.txt",
        "a.txt",
        "a/z.txt",
        "a/b/c.txt",
        "a0.txt",
        "B.txt",
        "b/x.txt",
        "sub-x.txt",
        "sub/inner.txt",  # becomes a submodule (gitlink) in git mode
        "nest.d/f.txt",
        "nest/code.py",  # an untracked nested repository in git mode
        "zz/caf\xe9.txt",
    ]
    for rel in names:
        write(root, rel, rel.encode())
    write(root, b"zz/\xff.bin", b"not utf-8")
    return [*names, os.fsdecode(b"zz/\xff.bin")]


def test_entries_come_in_path_byte_order(tmp_path: Path, mode: str) -> None:
    names = _order_tree(tmp_path)
    if mode == "git":
        sub = tmp_path / "sub"
        subprocess.run([*GIT, "init", "-q"], cwd=sub, check=True)
        subprocess.run([*GIT, "add", "-A"], cwd=sub, check=True)
        subprocess.run([*GIT, "commit", "-q", "-m", "sub"], cwd=sub, check=True)
        head = subprocess.run(
            [*GIT, "rev-parse", "HEAD"], cwd=sub, capture_output=True, text=True, check=True
        ).stdout.strip()
        names_outside = [n for n in names if not n.startswith(("sub/", "nest/"))]
        subprocess.run([*GIT, "init", "-q"], cwd=tmp_path, check=True)
        subprocess.run([*GIT, "add", "--", *names_outside], cwd=tmp_path, check=True)
        subprocess.run(
            [*GIT, "update-index", "--add", "--cacheinfo", f"160000,{head},sub"],
            cwd=tmp_path,
            check=True,
        )
        subprocess.run([*GIT, "commit", "-q", "-m", "init"], cwd=tmp_path, check=True)
        subprocess.run([*GIT, "init", "-q"], cwd=tmp_path / "nest", check=True)
        names.append("sub/.git")  # the submodule's own repository stays out
    expected = sorted((n for n in names if not n.endswith("/.git")), key=os.fsencode)
    assert _paths(tmp_path, ["."]) == expected
    # Several overlapping inputs give one run in the same order, each path once.
    assert _paths(tmp_path, ["zz", "a", "a/b/c.txt", "b", "a-b.txt"]) == [
        n for n in expected if n.startswith(("a/", "a-b", "b/", "zz/"))
    ]


def test_inputs_are_relative_to_the_current_directory(tmp_path: Path) -> None:
    from oraculum.archive.inputs import from_cwd

    root = tmp_path / "p"
    sub = root / "src" / "pkg"
    sub.mkdir(parents=True)
    assert from_cwd(root, root, [".", "a.py"]) == [".", "a.py"]
    assert from_cwd(root, tmp_path, ["p/a.py"]) == ["p/a.py"]  # outside: as given (--project)
    assert from_cwd(root, sub, [".", "m.py", "../x.py", "../../README.md", "/abs"]) == [
        "src/pkg",
        "src/pkg/m.py",
        "src/x.py",
        "README.md",
        "/abs",
    ]
    # Leaving the project, or naming its root from below: absolute, so resolving refuses it.
    assert from_cwd(root, sub, ["../../../up", "../.."]) == [str(tmp_path / "up"), str(root)]
    with pytest.raises(OracleError) as blank:
        from_cwd(root, sub, [" "])
    assert blank.value.code == "archive_input_blank"
    with pytest.raises(OracleError) as refused:
        resolve_inputs(root, from_cwd(root, sub, ["../.."]))
    assert refused.value.code == "archive_input_whole_repo_sentinel_invalid"
