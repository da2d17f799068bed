"""Files made before a critical section and named inside it (`unnamed_file`, `name_file`),
and writing into a file made earlier (`fill_private_file`), on the real filesystem."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from oraculum.core.errors import OracleError
from oraculum.core.fsio import fill_private_file, name_file, unnamed_file, write_private_file


def _unnamed(directory: Path) -> int:
    fd = unnamed_file(directory)
    if fd is None:
        pytest.skip("no O_TMPFILE on this platform or filesystem")
    return fd


def test_an_unnamed_file_gets_its_name_with_what_was_written(tmp_path: Path) -> None:
    fd = _unnamed(tmp_path)
    try:
        assert list(tmp_path.iterdir()) == []  # nothing to see (or sweep) before it is named
        os.pwrite(fd, b"1234", 0)
        name_file(fd, tmp_path / "marker")
    finally:
        os.close(fd)
    made = tmp_path / "marker"
    assert made.read_bytes() == b"1234"
    assert stat.S_IMODE(made.stat().st_mode) == 0o600


def test_a_taken_name_is_never_replaced(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("first")
    fd = _unnamed(tmp_path)
    try:
        with pytest.raises(FileExistsError):
            name_file(fd, tmp_path / "taken")
    finally:
        os.close(fd)
    assert (tmp_path / "taken").read_text() == "first"
    assert [p.name for p in tmp_path.iterdir()] == ["taken"]


def test_no_unnamed_file_in_a_missing_directory(tmp_path: Path) -> None:
    assert unnamed_file(tmp_path / "missing") is None


def test_filling_a_prepared_file_keeps_its_inode(tmp_path: Path) -> None:
    path = tmp_path / "job.json"
    write_private_file(path, b"")
    inode = path.stat().st_ino
    fill_private_file(path, b'{"id": 1}')
    assert path.read_bytes() == b'{"id": 1}' and path.stat().st_ino == inode
    fill_private_file(tmp_path / "missing.json", b"made")  # none there: made, privately
    assert (tmp_path / "missing.json").read_bytes() == b"made"
    assert stat.S_IMODE((tmp_path / "missing.json").stat().st_mode) == 0o600


def test_filling_never_follows_a_symlink(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.write_text("untouched")
    (tmp_path / "job.json").symlink_to(target)
    with pytest.raises(OracleError) as info:
        fill_private_file(tmp_path / "job.json", b"data")
    assert info.value.code == "io_error"
    assert target.read_text() == "untouched"
