"""Early writeback of durable archives (archive/writeback.py), with real files and threads."""

from __future__ import annotations

import os
import random
import threading
from pathlib import Path

import pytest

from oraculum.archive import build_archive
from oraculum.archive.writeback import WritebackFile

from .support import extract, git_init, tree_listing, write

MIB = 1024 * 1024


def _writeback_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "archive-writeback"]


def test_writes_pass_through_unchanged(tmp_path: Path) -> None:
    target = tmp_path / "out.bin"
    pieces = [random.Random(n).randbytes(n * 37_000 + 1) for n in range(12)]
    with target.open("wb") as raw:
        out = WritebackFile(raw, step=64 * 1024)  # many syncs on the way
        for piece in pieces:
            assert out.write(memoryview(piece)) == len(piece)
        out.flush()
        out.close()
    assert target.read_bytes() == b"".join(pieces)
    assert not _writeback_threads()


def test_a_failed_sync_is_raised_at_close(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    try:
        with os.fdopen(write_end, "wb", buffering=0) as raw:
            out = WritebackFile(raw, step=1)
            out.write(b"x")  # fdatasync on a pipe fails (EINVAL)
            with pytest.raises(OSError):
                out.close()
    finally:
        os.close(read_end)
    assert not _writeback_threads()


def test_durable_and_plain_builds_give_the_same_bytes(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    for n in range(30):
        write(root, f"pkg/m{n:02d}.py", (f"value_{n} = {n}\n" * 4000).encode())
    write(root, "data/noise.bin", random.Random(5).randbytes(20 * MIB))  # > one step
    git_init(root)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    durable = build_archive(root, ["."], tmp_path / "a", "job1", "chatgpt", fsync=True)
    plain = build_archive(root, ["."], tmp_path / "b", "job1", "chatgpt", fsync=False)
    assert durable.path.read_bytes() == plain.path.read_bytes()
    assert durable.sha256 == plain.sha256
    unpacked = tree_listing(extract(durable.path, tmp_path / "x"))
    expected = {k: v for k, v in tree_listing(root).items() if not k.startswith(b".git")}
    assert unpacked == expected
    assert not _writeback_threads()
