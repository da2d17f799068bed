"""The hand-written tar headers, checked against Python's tarfile and GNU tar."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

import pytest

from oraculum.archive.writer import ARCHIVE_MTIME, END_OF_ARCHIVE, tar_header


def _member(header: bytes, data: bytes = b"") -> tarfile.TarInfo:
    pad = bytes(-len(data) % 512)
    with tarfile.open(fileobj=io.BytesIO(header + data + pad + END_OF_ARCHIVE)) as tf:
        (member,) = tf.getmembers()
        if data:
            extracted = tf.extractfile(member)
            assert extracted is not None
            assert extracted.read() == data
    return member


def test_plain_file_header() -> None:
    member = _member(tar_header(b"src/a.txt", mode=0o644, size=5, typeflag=b"0"), b"hello")
    assert (member.name, member.size, member.mode, member.mtime) == (
        "src/a.txt",
        5,
        0o644,
        ARCHIVE_MTIME,
    )
    assert (member.uid, member.gid, member.uname, member.gname) == (0, 0, "", "")


@pytest.mark.parametrize("length", [99, 100, 101, 255, 4000])
def test_long_names_round_trip(length: int) -> None:
    name = b"d/" + b"n" * (length - 2)
    member = _member(tar_header(name, mode=0o755, size=1, typeflag=b"0"), b"x")
    assert member.name.encode() == name
    assert member.mode == 0o755


def test_long_link_target() -> None:
    target = b"../" + b"t" * 200
    member = _member(tar_header(b"l" * 150, mode=0o777, size=0, typeflag=b"2", linkname=target))
    assert member.issym()
    assert member.linkname.encode() == target
    assert member.name == "l" * 150


def test_huge_size_uses_base256() -> None:
    header = tar_header(b"big", mode=0o644, size=9 * 1024**3, typeflag=b"0")
    assert header[124] == 0x80
    with tarfile.open(fileobj=io.BytesIO(header + bytes(1024)), ignore_zeros=False) as tf:
        info = tf.next()
        assert info is not None and info.size == 9 * 1024**3


def test_gnu_tar_keeps_exact_name_bytes(tmp_path: Path) -> None:
    name = b"caf\xe9/" + b"\xff" * 120 + b".txt"
    archive = tmp_path / "a.tar"
    archive.write_bytes(
        tar_header(name, mode=0o644, size=3, typeflag=b"0") + b"abc" + bytes(509) + END_OF_ARCHIVE
    )
    listing = subprocess.run(
        ["tar", "--quoting-style=literal", "-tf", str(archive)], capture_output=True, check=True
    )
    assert listing.stdout == name + b"\n"
