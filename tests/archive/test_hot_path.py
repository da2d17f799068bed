"""The per-file hot path: ``open_stat`` (selection) and ``pack_file`` (writer)."""

from __future__ import annotations

import os
import random
import signal
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from oraculum.archive.selection import open_stat
from oraculum.archive.writer import BLOCK, pack_file, tar_header


def _open_fd_count() -> int:
    return len(os.listdir("/proc/self/fd"))


def _pack(
    path: Path, name: bytes, mode: int, size: int, room: int
) -> tuple[bytes, tuple[int, int]]:
    buffer = bytearray(b"\xaa" * room)  # stale bytes: every byte written must be written
    fd = os.open(path, os.O_RDONLY)
    try:
        got = pack_file(memoryview(buffer), BLOCK, fd, name, mode, size)
    finally:
        os.close(fd)
    return bytes(buffer), got


@pytest.mark.parametrize("size", [0, 1, 100, 511, 512, 513, 1024, 3000, 5000])
@pytest.mark.parametrize("room", [3 * BLOCK, 4 * BLOCK, 16 * BLOCK])
def test_pack_file_places_header_content_and_padding(tmp_path: Path, size: int, room: int) -> None:
    path = tmp_path / "f"
    path.write_bytes(random.Random(size).randbytes(size))
    packed, (pos, left) = _pack(path, b"dir/f.py", 0o644, size, room)
    content = min(size, room - 2 * BLOCK)
    assert left == size - content
    # What fits is there, behind a header tar_header agrees with, padded when complete.
    assert packed[BLOCK : 2 * BLOCK] == tar_header(
        b"dir/f.py", mode=0o644, size=size, typeflag=b"0"
    )
    assert packed[2 * BLOCK : 2 * BLOCK + content] == path.read_bytes()[:content]
    assert pos == (2 * BLOCK + content + (-size % BLOCK if not left else 0))
    if not left:
        assert packed[2 * BLOCK + content : pos] == bytes(pos - 2 * BLOCK - content)


def test_pack_file_headers_are_tar_header_s_for_any_name_mode_and_size(tmp_path: Path) -> None:
    rng = random.Random(25)
    path = tmp_path / "empty"
    path.write_bytes(b"")
    names = [b"a", b"x" * 100, b"caf\xc3\xa9", b"raw-\xff-name", b"a/b c/d\te"]
    names += [bytes(rng.randrange(1, 256) for _ in range(rng.randrange(1, 101))) for _ in range(50)]
    for name in names:
        for mode in (0o644, 0o755, 0o600, 0o7777):
            size = rng.choice([0, 1, 8**11 - 1, 8**11, 2**40])
            # The content is not read when the buffer has room for the header alone.
            packed, got = _pack(path, name, mode, size, 2 * BLOCK)
            assert got == (2 * BLOCK, size), (name, mode, size)
            assert packed[BLOCK:] == tar_header(name, mode=mode, size=size, typeflag=b"0")


def test_a_file_that_shrank_is_zero_filled_and_one_that_grew_is_cut(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"abc")
    shrank, _ = _pack(path, b"f", 0o644, 700, 8 * BLOCK)
    assert shrank[2 * BLOCK : 2 * BLOCK + 1024] == b"abc" + bytes(1021)
    path.write_bytes(b"abcdef" * 200)
    grew, got = _pack(path, b"f", 0o644, 5, 8 * BLOCK)
    assert grew[2 * BLOCK : 3 * BLOCK] == b"abcde" + bytes(507)
    assert got == (3 * BLOCK, 0)


def test_pack_file_refuses_what_it_cannot_pack() -> None:
    view = memoryview(bytearray(4 * BLOCK))
    for pos in (1, 3 * BLOCK + 1, 4 * BLOCK):  # off a block boundary, or no block of room
        with pytest.raises(ValueError):
            pack_file(view, pos, 0, b"a", 0o644, 0)
    with pytest.raises(ValueError):
        pack_file(view, 0, 0, b"n" * 101, 0o644, 0)


def test_a_read_error_is_an_oserror(tmp_path: Path) -> None:
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with pytest.raises(IsADirectoryError):
            pack_file(memoryview(bytearray(4 * BLOCK)), 0, fd, b"d", 0o644, 10)
    finally:
        os.close(fd)


def test_open_stat_opens_regular_files_only_and_leaves_nothing_open(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    root.mkdir()
    (root / "plain").write_bytes(b"x" * 1234)
    (root / "run").write_bytes(b"#!/bin/sh\n")
    (root / "run").chmod(0o700)
    (root / "other-x").write_bytes(b"")
    (root / "other-x").chmod(0o601)
    (root / "dir").mkdir()
    (root / "link").symlink_to("plain")
    os.mkfifo(root / "fifo")
    (root / "caf\udcc3\udca9").write_bytes(b"raw name")
    root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    before = _open_fd_count()
    expected = {
        "plain": (1234, 0o644),
        "run": (10, 0o755),
        "other-x": (0, 0o755),
        "caf\udcc3\udca9": (8, 0o644),
        "dir": None,
        "link": None,  # never followed
        "fifo": None,  # never opened for a read that would block
        "missing": None,
    }
    try:
        for name, want in expected.items():
            got = open_stat(name, root_fd)
            if got is None:
                assert want is None, name
                continue
            assert os.read(got[0], 100) == (root / name).read_bytes()[:100]
            os.close(got[0])
            assert got[1:] == want, name
        assert _open_fd_count() == before  # nothing left open by a refusal
    finally:
        os.close(root_fd)
    assert open_stat("plain", -1) is None
    with pytest.raises(ValueError):
        open_stat("a\0b", root_fd)


class _Stop(Exception):
    pass


def _signal_main_thread_soon(handler: Callable[[int, object], None]) -> Callable[[], None]:
    """SIGUSR1 to this (the main) thread in 0.1 s, handled by ``handler``; returns the undo."""
    previous = signal.signal(signal.SIGUSR1, handler)
    timer = threading.Timer(0.1, signal.pthread_kill, (threading.get_ident(), signal.SIGUSR1))
    timer.start()

    def undo() -> None:
        timer.cancel()
        signal.signal(signal.SIGUSR1, previous)

    return undo


def test_a_signal_handler_that_raises_stops_a_blocked_read() -> None:
    read_end, write_end = os.pipe()  # nothing is ever written: the read blocks

    def stop(_signum: int, _frame: object) -> None:
        raise _Stop

    undo = _signal_main_thread_soon(stop)
    try:
        with pytest.raises(_Stop):
            pack_file(memoryview(bytearray(4 * BLOCK)), 0, read_end, b"p", 0o644, 10)
    finally:
        undo()
        os.close(read_end)
        os.close(write_end)
