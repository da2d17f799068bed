"""The C extension's hot path against its pure-Python twins: same results, byte for byte."""

from __future__ import annotations

import os
import random
import shutil
import signal
import sysconfig
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from oraculum.archive import selection, writer
from oraculum.archive.inputs import MEMBER_OPEN_FLAGS
from oraculum.archive.native import native
from oraculum.archive.selection import stream_entries
from oraculum.archive.writer import (
    BLOCK,
    CHUNK,
    WriteStats,
    pack_file_py,
    tar_header,
    write_archive,
)

from .support import extract, git_init, tree_listing, use_python_twins, write

PackFile = Callable[[memoryview, int, int, bytes, int, int], tuple[int, int]]
OpenStat = Callable[[str, int], "tuple[int, int, int] | None"]


def test_the_extension_is_built_where_a_compiler_is() -> None:
    # pip builds it quietly and goes on without it if the build fails: a broken build must
    # show here, not only as a slower archive.
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler}): the pure-Python twins run")
    assert native is not None
    assert selection.open_stat is native.open_stat
    assert writer.pack_file is native.pack_file


@pytest.fixture
def c_module() -> Any:
    if native is None:
        pytest.skip("the C extension is not built")
    return native


@pytest.fixture(params=["python", "c"])
def pack(request: pytest.FixtureRequest, c_module: Any) -> PackFile:
    """``pack_file_py``, then the C ``pack_file``: a test taking it runs with each."""
    return pack_file_py if request.param == "python" else c_module.pack_file


def _open_fd_count() -> int:
    return len(os.listdir("/proc/self/fd"))


def _pack_both(
    c_module: Any, path: Path, name: bytes, mode: int, size: int, room: int
) -> list[tuple[bytes, tuple[int, int]]]:
    results = []
    for pack in (pack_file_py, c_module.pack_file):
        buffer = bytearray(b"\xaa" * room)  # stale bytes: every byte written must be written
        fd = os.open(path, os.O_RDONLY)
        try:
            got = pack(memoryview(buffer), BLOCK, fd, name, mode, size)
        finally:
            os.close(fd)
        results.append((bytes(buffer), got))
    return results


@pytest.mark.parametrize("size", [0, 1, 100, 511, 512, 513, 1024, 3000, 5000])
@pytest.mark.parametrize("room", [3 * BLOCK, 4 * BLOCK, 16 * BLOCK])
def test_pack_file_gives_the_same_bytes_and_position(
    c_module: Any, tmp_path: Path, size: int, room: int
) -> None:
    path = tmp_path / "f"
    path.write_bytes(random.Random(size).randbytes(size))
    (py_bytes, py_got), (c_bytes, c_got) = _pack_both(
        c_module, path, b"dir/f.py", 0o644, size, room
    )
    assert c_got == py_got
    assert c_bytes == py_bytes
    pos, left = c_got
    content = min(size, room - 2 * BLOCK)
    assert left == size - content
    # What fits is there, behind a header tar_header agrees with, padded when complete.
    assert c_bytes[BLOCK : 2 * BLOCK] == tar_header(
        b"dir/f.py", mode=0o644, size=size, typeflag=b"0"
    )
    assert c_bytes[2 * BLOCK : 2 * BLOCK + content] == path.read_bytes()[:content]
    assert pos == (2 * BLOCK + content + (-size % BLOCK if not left else 0))


def test_pack_file_headers_match_for_any_name_mode_and_size(c_module: Any, tmp_path: Path) -> None:
    rng = random.Random(25)
    path = tmp_path / "empty"
    path.write_bytes(b"")
    names = [b"a", b"x" * 100, b"caf\xc3\xa9", b"raw-\xff-name", b"a/b c/d\te"]
    names += [bytes(rng.randrange(1, 256) for _ in range(rng.randrange(1, 101))) for _ in range(50)]
    for name in names:
        for mode in (0o644, 0o755, 0o600, 0o7777):
            size = rng.choice([0, 1, 8**11 - 1, 8**11, 2**40])
            # The content is not read when the buffer has room for the header alone.
            (py_bytes, py_got), (c_bytes, c_got) = _pack_both(
                c_module, path, name, mode, size, 2 * BLOCK
            )
            assert (c_bytes, c_got) == (py_bytes, py_got), (name, mode, size)
            assert c_bytes[BLOCK:] == tar_header(name, mode=mode, size=size, typeflag=b"0")


def test_a_file_that_shrank_is_zero_filled_and_one_that_grew_is_cut(
    c_module: Any, tmp_path: Path
) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"abc")
    shrank = _pack_both(c_module, path, b"f", 0o644, 700, 8 * BLOCK)
    assert shrank[0] == shrank[1]
    assert shrank[1][0][2 * BLOCK : 2 * BLOCK + 1024] == b"abc" + bytes(1021)
    path.write_bytes(b"abcdef" * 200)
    grew = _pack_both(c_module, path, b"f", 0o644, 5, 8 * BLOCK)
    assert grew[0] == grew[1]
    assert grew[1][0][2 * BLOCK : 3 * BLOCK] == b"abcde" + bytes(507)
    assert grew[1][1] == (3 * BLOCK, 0)


def test_pack_file_refuses_what_it_cannot_pack(pack: PackFile) -> None:
    view = memoryview(bytearray(4 * BLOCK))
    for pos in (1, 3 * BLOCK + 1, 4 * BLOCK):  # off a block boundary, or no block of room
        with pytest.raises(ValueError):
            pack(view, pos, 0, b"a", 0o644, 0)
    with pytest.raises(ValueError):
        pack(view, 0, 0, b"n" * 101, 0o644, 0)


def test_a_read_error_is_an_oserror(pack: PackFile, tmp_path: Path) -> None:
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with pytest.raises(IsADirectoryError):
            pack(memoryview(bytearray(4 * BLOCK)), 0, fd, b"d", 0o644, 10)
    finally:
        os.close(fd)


def test_open_stat_agrees_with_its_twin(c_module: Any, tmp_path: Path) -> None:
    assert c_module.OPEN_FLAGS == MEMBER_OPEN_FLAGS
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
    try:
        names = ["plain", "run", "other-x", "dir", "link", "fifo", "missing", "caf\udcc3\udca9"]
        for name in names:
            results = []
            for twin in (selection.open_stat_py, c_module.open_stat):
                got = twin(name, root_fd)
                if got is not None:
                    assert os.read(got[0], 100) == (root / name).read_bytes()[:100]
                    os.close(got[0])
                    got = (0, *got[1:])  # the descriptor number itself may differ
                results.append(got)
            assert results[0] == results[1], name
        assert _open_fd_count() == before  # nothing left open by a refusal
    finally:
        os.close(root_fd)
    assert c_module.open_stat("plain", -1) is None
    with pytest.raises(ValueError):
        c_module.open_stat("a\0b", root_fd)


def _build(root: Path, out: Path, hot: str, monkeypatch: pytest.MonkeyPatch) -> WriteStats:
    with monkeypatch.context() as patch:
        if hot == "python":
            use_python_twins(patch)
        stream = stream_entries(root, ["."], deadline=None, open_files=True)
        try:
            with out.open("wb") as raw:
                stats = write_archive(
                    str(root),
                    stream,
                    raw,
                    compression="zstd",
                    level=3,
                    threads=0,
                    measure_at=[3, 40, 41],
                    opened=stream.open_member,
                )
        finally:
            stream.close()
        assert stream.selection().skipped_dicts() == []
    return stats


@pytest.mark.parametrize("source", ["git", "walk"])
def test_whole_archives_are_the_same_bytes_either_way(
    c_module: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str
) -> None:
    root = tmp_path / "tree"
    rng = random.Random(7)
    for i in range(60):
        size = rng.choice([0, 1, 511, 512, 513, 9000, CHUNK - 700, CHUNK + 3])
        write(root, f"d{i % 4}/f{i:02d}.txt", rng.randbytes(size))
    write(root, "l" * 60 + "/" + "n" * 60 + ".py", b"a long name\n")
    write(root, "run.sh", b"#!/bin/sh\n")
    (root / "run.sh").chmod(0o755)
    (root / "link").symlink_to("run.sh")
    write(root, ".npmrc", b"registry=https://example.invalid/\n")
    if source == "git":
        git_init(root)
    built = [_build(root, tmp_path / f"{hot}.tar.zst", hot, monkeypatch) for hot in ("c", "python")]
    assert built[0] == built[1]
    assert (tmp_path / "c.tar.zst").read_bytes() == (tmp_path / "python.tar.zst").read_bytes()
    expected = {k: v for k, v in tree_listing(root).items() if not k.startswith(b".git/")}
    assert tree_listing(extract(tmp_path / "c.tar.zst", tmp_path / "x")) == expected


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


def test_a_signal_handler_that_raises_stops_a_blocked_read(pack: PackFile) -> None:
    read_end, write_end = os.pipe()  # nothing is ever written: the read blocks

    def stop(_signum: int, _frame: object) -> None:
        raise _Stop

    undo = _signal_main_thread_soon(stop)
    try:
        with pytest.raises(_Stop):
            pack(memoryview(bytearray(4 * BLOCK)), 0, read_end, b"p", 0o644, 10)
    finally:
        undo()
        os.close(read_end)
        os.close(write_end)


def test_a_signal_handler_that_returns_leaves_the_rest_to_the_caller(c_module: Any) -> None:
    read_end, write_end = os.pipe()
    handled: list[int] = []
    undo = _signal_main_thread_soon(lambda signum, _frame: handled.append(signum))
    try:
        buffer = bytearray(4 * BLOCK)
        pos, left = c_module.pack_file(memoryview(buffer), 0, read_end, b"p", 0o644, 10)
    finally:
        undo()
        os.close(read_end)
        os.close(write_end)
    assert handled == [signal.SIGUSR1]
    assert (pos, left) == (BLOCK, 10)  # the header is placed; the content is still to read
    assert bytes(buffer[:BLOCK]) == tar_header(b"p", mode=0o644, size=10, typeflag=b"0")
