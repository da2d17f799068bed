"""git's listing of a project, on real repositories and real git processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from oraculum.archive import select_entries
from oraculum.archive.git import GitListing, SelectionTimeout, start_early, unreadable_dirs
from oraculum.archive.selection import stream_entries

from .support import GIT, git_init, write


def _git_children(*, zombies: bool = False) -> list[int]:
    """Pids of this process's children that are git (with ``zombies``, unreaped ones too)."""
    me = os.getpid()
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1 : stat.rindex(")")]
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        state = stat[stat.rindex(")") + 2]
        if ppid == me and comm == "git" and (zombies or state != "Z"):
            found.append(int(pid))
    return found


def test_outside_a_work_tree_there_is_no_listing(tmp_path: Path) -> None:
    write(tmp_path, "a.txt")
    assert GitListing.start(str(tmp_path), None) is None
    assert _git_children() == []


def test_tracked_and_untracked_paths_in_byte_order(tmp_path: Path) -> None:
    for rel in ("b.txt", "a/z.txt", "a-b.txt"):
        write(tmp_path, rel)
    git_init(tmp_path)
    for rel in ("a/new.txt", "c.txt", "ignored.log", "nested/code.py"):
        write(tmp_path, rel)
    write(tmp_path, ".gitignore", b"*.log\n")
    subprocess.run([*GIT, "init", "-q"], cwd=tmp_path / "nested", check=True)
    listing = GitListing.start(str(tmp_path), None)
    assert listing is not None
    try:
        assert listing.tracked == ["a-b.txt", "a/z.txt", "b.txt"]
        assert listing.untracked(None) == [".gitignore", "a/new.txt", "c.txt", "nested/"]
        assert listing.walk_done()
    finally:
        listing.close()
    listing.close()  # twice is fine
    assert _git_children() == []


def test_untracked_output_larger_than_a_pipe_buffer(tmp_path: Path) -> None:
    """git's walk writes more than a pipe holds: reading ahead must drain it, or git would
    block forever on a full pipe while the selection waits for it to finish."""
    write(tmp_path, "tracked.txt")
    git_init(tmp_path)
    names = [f"untracked/{'n' * 60}-{i:05d}.txt" for i in range(3000)]  # ~200 KB of paths
    for name in names:
        write(tmp_path, name)
    listing = GitListing.start(str(tmp_path), None)
    assert listing is not None
    try:
        deadline = time.monotonic() + 30
        while not listing.walk_done():
            assert time.monotonic() < deadline, "git's walk never finished"
            time.sleep(0.01)
        assert listing.untracked(None) == names
    finally:
        listing.close()
    assert [e.path for e in select_entries(tmp_path, ["."]).entries] == ["tracked.txt", *names]


def test_close_stops_a_walk_nobody_waited_for(tmp_path: Path) -> None:
    write(tmp_path, "tracked.txt")
    git_init(tmp_path)
    for i in range(2000):
        write(tmp_path, f"u/{i}.txt")
    stream = stream_entries(tmp_path, ["."])  # lists, but nothing is read
    stream.close()
    assert _git_children() == []


def test_a_passed_deadline_stops_the_listing(tmp_path: Path) -> None:
    write(tmp_path, "a.txt")
    git_init(tmp_path)
    with pytest.raises(SelectionTimeout):
        GitListing.start(str(tmp_path), time.monotonic() - 1)
    assert _git_children() == []


def test_a_stream_is_read_once(tmp_path: Path) -> None:
    write(tmp_path, "a.txt")
    stream = stream_entries(tmp_path, ["."])
    with pytest.raises(RuntimeError):
        stream.selection()
    assert [e.path for e in stream] == ["a.txt"]
    assert [e.path for e in stream.selection().entries] == ["a.txt"]
    with pytest.raises(RuntimeError):
        list(stream)


def test_a_stream_that_cannot_start_leaves_nothing_open(tmp_path: Path) -> None:
    write(tmp_path, "a.txt")
    git_init(tmp_path)
    before = set(os.listdir("/proc/self/fd"))
    with pytest.raises(SelectionTimeout):
        stream_entries(tmp_path, ["."], deadline=time.monotonic() - 1, open_files=True)
    assert set(os.listdir("/proc/self/fd")) == before
    assert _git_children() == []


def test_unreadable_directories_read_from_git_warnings() -> None:
    """git's walk names the directories it could not open relative to the top of the work
    tree; they are reported relative to the project root, and those outside it are dropped."""
    stderr = (
        b"warning: could not open directory 'app/locked/': Permission denied\n"
        b"warning: could not open directory 'other/x/': Permission denied\n"
        b"warning: could not open directory 'app/caf\xe9 dir/': Permission denied\n"
        b"warning: something else entirely\n"
    )
    assert unreadable_dirs(stderr, "app/") == {
        "locked": "Permission denied",
        os.fsdecode(b"caf\xe9 dir"): "Permission denied",
    }
    assert unreadable_dirs(stderr, "") == {
        "app/locked": "Permission denied",
        "other/x": "Permission denied",
        os.fsdecode(b"app/caf\xe9 dir"): "Permission denied",
    }
    assert unreadable_dirs(b"", "") == {}


def test_listings_started_early_are_the_ones_taken(tmp_path: Path) -> None:
    write(tmp_path, "t.txt")
    git_init(tmp_path)
    write(tmp_path, "u.txt")
    before = set(_git_children(zombies=True))
    start_early(tmp_path / "." / "")  # any spelling of the root: it is made absolute
    start_early(tmp_path)  # once per root
    assert len(set(_git_children(zombies=True)) - before) == 2  # the walk and the index
    listing = GitListing.start(str(tmp_path), None)
    assert listing is not None
    try:
        assert listing.tracked == ["t.txt"]
        assert listing.untracked(None) == ["u.txt"]
    finally:
        listing.close()
    # Both taken and reaped (early ones left behind would still be unreaped children).
    assert set(_git_children(zombies=True)) <= before
    again = GitListing.start(str(tmp_path), None)  # a second build lists afresh
    assert again is not None and again.tracked == ["t.txt"]
    again.close()


def test_an_early_start_outside_a_work_tree_gives_no_listing(tmp_path: Path) -> None:
    write(tmp_path, "a.txt")
    before = set(_git_children(zombies=True))
    start_early(tmp_path)
    assert GitListing.start(str(tmp_path), None) is None
    assert set(_git_children(zombies=True)) <= before


_LOADED = "import sys, {0}; print(sorted(m for m in sys.modules if m in {1}))"


def test_the_git_module_loads_without_the_rest_of_the_archive_code() -> None:
    heavy = {"zstandard", "oraculum.archive.build", "oraculum.archive.writer"}
    code = _LOADED.format("oraculum.archive.git", heavy)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    # The package's names load with their modules on first use.
    code = "from oraculum.archive import build_archive as b, Entry as e, inputs as i; "
    code += "print(b.__module__, e.__module__, i.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [
        "oraculum.archive.build",
        "oraculum.archive.selection",
        "oraculum.archive.inputs",
    ]


def test_a_path_in_conflict_is_listed_once(tmp_path: Path) -> None:
    # git lists an unmerged path once per stage; the listing holds it once, in its place.
    write(tmp_path, "a.txt", b"base\n")
    write(tmp_path, "m.txt", b"base\n")
    write(tmp_path, "z.txt", b"base\n")
    git_init(tmp_path)
    git = [*GIT, "-c", "user.email=t@example.invalid", "-c", "user.name=t"]
    run = {"cwd": tmp_path, "check": True, "capture_output": True}
    subprocess.run([*git, "checkout", "-q", "-b", "other"], **run)
    write(tmp_path, "m.txt", b"other\n")
    subprocess.run([*git, "commit", "-q", "-am", "other"], **run)
    subprocess.run([*git, "checkout", "-q", "-"], **run)
    write(tmp_path, "m.txt", b"mine\n")
    subprocess.run([*git, "commit", "-q", "-am", "mine"], **run)
    merge = subprocess.run([*git, "merge", "-q", "other"], cwd=tmp_path, capture_output=True)
    assert merge.returncode != 0  # the conflict
    stages = subprocess.run([*GIT, "ls-files", "-z"], cwd=tmp_path, capture_output=True)
    assert stages.stdout.count(b"m.txt\0") == 3
    listing = GitListing.start(str(tmp_path), None)
    assert listing is not None
    try:
        assert listing.tracked == ["a.txt", "m.txt", "z.txt"]
    finally:
        listing.close()


def test_paths_come_distinct_and_in_byte_order_whatever_order_they_came_in() -> None:
    from oraculum.archive.git import _paths

    assert _paths(b"") == []
    raw = [b"b", b"a/\xff", b"a/z", b"a-b", b"b", "\u00e9".encode(), b"a/\xff"]
    got = _paths(b"\0".join(raw) + b"\0")
    assert [os.fsencode(p) for p in got] == sorted(set(raw))


@pytest.mark.skipif(not hasattr(__import__("fcntl"), "F_GETPIPE_SZ"), reason="Linux pipe sizes")
def test_git_can_write_a_whole_listing_before_it_is_read(tmp_path: Path) -> None:
    import fcntl

    from oraculum.archive.git import _LISTING_PIPE_BYTES, _start_both, _stop

    write(tmp_path, "a.txt")
    git_init(tmp_path)
    started = _start_both(str(tmp_path))
    assert started is not None
    try:
        for proc in started:
            assert proc.stdout is not None
            size = fcntl.fcntl(proc.stdout.fileno(), fcntl.F_GETPIPE_SZ)
            assert size >= _LISTING_PIPE_BYTES
    finally:
        for proc in started:
            _stop(proc)
