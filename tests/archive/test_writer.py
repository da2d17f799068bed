"""The hand-written tar headers, checked against Python's tarfile and GNU tar."""

from __future__ import annotations

import io
import os
import random
import subprocess
import tarfile
from pathlib import Path

import pytest

from oraculum.archive import Entry, select_entries
from oraculum.archive.content import CONTENT_CHECK_MAX_BYTES
from oraculum.archive.writer import (
    ARCHIVE_MTIME,
    CHUNK,
    END_OF_ARCHIVE,
    WriteStats,
    tar_header,
    write_archive,
    write_tar,
    zstd_parameters,
)

from .support import extract, tree_listing, write


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


# -- whole streams through write_archive, unpacked by the system tar ---------------------------


def _archive(root: Path, entries: list[Entry], dest: Path) -> WriteStats:
    with open(dest, "wb") as raw:
        return write_archive(str(root), entries, raw, compression="zstd", level=3, threads=-1)


@pytest.mark.parametrize(
    "size", [0, 1, 511, 512, 513, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK - 300, 3 * CHUNK + 5]
)
def test_sizes_around_block_and_chunk_boundaries(tmp_path: Path, size: int) -> None:
    root = tmp_path / "tree"
    # Neighbours on both sides: a member's padding or a chunk boundary must not bleed into them.
    names = ["a.txt", "b.bin", "c.txt"]
    data = [b"first\n", random.Random(size).randbytes(size), b"last\n" * 300]
    for name, content in zip(names, data, strict=True):
        write(root, name, content)
    entries = select_entries(root, ["."]).entries
    stats = _archive(root, entries, tmp_path / "a.tar.zst")
    assert stats.written == [True, True, True]
    assert stats.offsets == [0, 1024, 1024 + 512 + -(-size // 512) * 512, stats.offsets[3]]
    got = tree_listing(extract(tmp_path / "a.tar.zst", tmp_path / "x"))
    assert got == {n.encode(): ("file", d) for n, d in zip(names, data, strict=True)}


def test_files_changed_after_selection_still_give_a_valid_archive(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    for name in ("grown", "shrunk", "to-dir", "to-fifo", "to-link", "deleted", "same"):
        write(root, name, b"0123456789" * 100)
    write(root, "big", random.Random(5).randbytes(CHUNK + 4096))
    entries = select_entries(root, ["."]).entries
    write(root, "grown", b"0123456789" * 300)
    write(root, "shrunk", b"short")
    write(root, "big", b"now small")
    (root / "to-dir").unlink()
    (root / "to-dir").mkdir()
    (root / "to-fifo").unlink()
    os.mkfifo(root / "to-fifo")
    (root / "to-link").unlink()
    (root / "to-link").symlink_to("same")
    (root / "deleted").unlink()

    stats = _archive(root, entries, tmp_path / "a.tar.zst")

    skipped = dict(stats.skipped)
    assert set(skipped) == {"to-dir", "to-fifo", "to-link", "deleted"}
    assert skipped["to-dir"] == skipped["to-fifo"] == "changed type while archiving"
    assert skipped["to-link"].startswith("could not open while archiving")
    assert skipped["deleted"].startswith("could not open while archiving")
    got = tree_listing(extract(tmp_path / "a.tar.zst", tmp_path / "x"))
    # Each member holds the file as it was when it was opened.
    assert got == {
        b"big": ("file", b"now small"),
        b"grown": ("file", b"0123456789" * 300),
        b"same": ("file", b"0123456789" * 100),
        b"shrunk": ("file", b"short"),
    }
    assert [e.path for e, ok in zip(entries, stats.written, strict=True) if ok] == [
        "big",
        "grown",
        "same",
        "shrunk",
    ]


def test_a_file_that_shrinks_while_it_is_read_is_padded_to_its_header_size(
    tmp_path: Path,
) -> None:
    """The header is written before the content is read, so a file truncated mid-read must
    still fill exactly the size its header announced (zeros), or every later member would be
    misread."""
    root = tmp_path / "tree"
    write(root, "a.bin", bytes(range(256)) * (3 * CHUNK // 256))
    write(root, "z.txt", b"after")
    entries = select_entries(root, ["."]).entries
    sink = _TruncatingSink(root / "a.bin", after_bytes=CHUNK + 700)
    write_tar(str(root), entries, sink)
    with tarfile.open(fileobj=io.BytesIO(bytes(sink.data))) as tf:
        a = tf.extractfile("a.bin")
        z = tf.extractfile("z.txt")
        assert a is not None and z is not None
        content = a.read()
        assert len(content) == 3 * CHUNK
        assert content[:CHUNK] == (bytes(range(256)) * (3 * CHUNK // 256))[:CHUNK]
        assert content[-CHUNK:] == bytes(CHUNK)
        assert z.read() == b"after"


class _CollectingSink:
    """Collects the tar stream."""

    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, data: bytes | memoryview) -> None:
        self.data += data

    def mark(self) -> int:
        return len(self.data)

    def close(self) -> int:
        return len(self.data)

    def abort(self) -> None:
        return None


class _TruncatingSink(_CollectingSink):
    """Collects the tar stream; truncates a file once that many bytes have arrived."""

    def __init__(self, victim: Path, after_bytes: int) -> None:
        super().__init__()
        self.victim = victim
        self.after = after_bytes
        self.done = False

    def write(self, data: bytes | memoryview) -> None:
        super().write(data)
        if not self.done and len(self.data) >= self.after:
            os.truncate(self.victim, 100)
            self.done = True


def test_level_3_is_tuned_and_other_levels_are_zstds_own() -> None:
    import zstandard

    tuned, own = zstd_parameters(3, 2), zstandard.ZstdCompressionParameters.from_level(3)
    assert (tuned.hash_log, tuned.chain_log) == (16, 15)
    assert (own.hash_log, own.chain_log) == (17, 16)  # what the cap saves: 384 of 768 KiB
    assert (tuned.window_log, own.window_log) == (23, 21)
    assert tuned.job_size == 8 << 20 and tuned.strategy == own.strategy
    assert not tuned.write_checksum and tuned.threads == 2
    for level in (1, 9, 19):
        mine = zstd_parameters(level, 0)
        assert not mine.write_checksum
        zstds = zstandard.ZstdCompressionParameters.from_level(level)
        assert (mine.hash_log, mine.chain_log, mine.window_log) == (
            zstds.hash_log,
            zstds.chain_log,
            zstds.window_log,
        )


def test_a_level_3_archive_is_the_same_bytes_every_time_and_reads_back(tmp_path: Path) -> None:
    write(tmp_path / "src", "a.py", b"print('a')\n" * 5000)
    write(tmp_path / "src", "b.txt", "".join(f"{n:08d}\n" for n in range(50_000)).encode())
    entries = select_entries(str(tmp_path / "src"), ["."]).entries
    outputs = []
    for threads in (-1, -1):
        raw = io.BytesIO()
        write_archive(
            str(tmp_path / "src"), entries, raw, compression="zstd", level=3, threads=threads
        )
        outputs.append(raw.getvalue())
    assert outputs[0] == outputs[1]
    out = tmp_path / "x.tar.zst"
    out.write_bytes(outputs[0])
    assert tree_listing(extract(out, tmp_path / "x")) == tree_listing(tmp_path / "src")


def test_the_writers_in_place_headers_are_tar_header_s_bytes(tmp_path: Path) -> None:
    # The hot loop packs a regular file's header straight into its buffer; every such header
    # must be exactly what tar_header makes, whatever the name, mode and size.
    root = tmp_path / "tree"
    names = [b"a", b"n" * 99, b"x" * 100, b"caf\xc3\xa9.txt", b"raw-\xff-name", b"d/e/f.py"]
    entries = []
    for i, name in enumerate(names):
        path = os.fsencode(root) + b"/" + name
        os.makedirs(os.path.dirname(path), exist_ok=True)
        size = [0, 1, 511, 512, 513, 4000][i]
        with open(path, "wb") as f:
            f.write(bytes([i + 1]) * size)
        mode = [0o644, 0o755, 0o600, 0o644, 0o711, 0o644][i]
        entries.append(Entry(os.fsdecode(name), "file", size, mode))
    entries.sort(key=lambda e: os.fsencode(e.path))
    sink = _CollectingSink()
    offsets, _points, written, _skipped = write_tar(str(root), entries, sink)
    assert all(written)
    for entry, offset in zip(entries, offsets, strict=False):
        header = tar_header(
            os.fsencode(entry.path), mode=entry.mode, size=entry.size, typeflag=b"0"
        )
        assert bytes(sink.data[offset : offset + 512]) == header, entry
        body = bytes(sink.data[offset + 512 : offset + 512 + entry.size])
        assert body == (root / entry.path).read_bytes()


def test_an_aborted_sink_refuses_writes() -> None:
    from oraculum.archive.writer import ZstdSink, _HashingFile

    sink = ZstdSink(_HashingFile(io.BytesIO()), 3, 2)
    sink.abort()
    with pytest.raises(RuntimeError, match="aborted"):
        sink.write(b"x" * 1000)


@pytest.mark.parametrize("lead", [0, 1000, CHUNK - 3 * 512 - 3000, CHUNK - 2 * 512 - 100])
def test_a_member_the_content_check_refuses_is_taken_back_whole(tmp_path: Path, lead: int) -> None:
    """The check sees each small file's whole content in the buffer, wherever the buffer stands
    (``lead`` fills it to just short of its end), and a refused member leaves no byte behind:
    the archive is the one built without it."""
    root = tmp_path / "tree"
    long_dir = "d" * 120
    files = {
        "0-lead.bin": random.Random(lead).randbytes(lead),
        "1-secret.txt": b"SECRET " * 500,
        "2-kept.txt": b"kept\n" * 50,
        f"{long_dir}/3-secret.txt": b"SECRET long name",
        f"{long_dir}/4-kept.txt": b"kept too\n",
        "5-big.bin": b"SECRET " * 1000,  # over the check's cap: never shown to it
    }
    for rel, data in files.items():
        write(root, rel, data)
    entries = select_entries(root, ["."]).entries
    seen: dict[str, bytes] = {}

    def check(entry: Entry, content: memoryview) -> bool:
        seen[entry.path] = bytes(content)
        return bytes(content).startswith(b"SECRET")

    sink = _CollectingSink()
    offsets, _points, written, _skipped = write_tar(str(root), entries, sink, check=check)
    assert seen == {r: d for r, d in files.items() if len(d) <= CONTENT_CHECK_MAX_BYTES}
    assert "1-secret.txt" in seen and "5-big.bin" not in seen
    kept = [e for e in entries if "secret" not in e.path]
    assert len(written) == len(offsets) - 1 == len(kept)
    plain = _CollectingSink()
    write_tar(str(root), kept, plain)
    assert sink.data == plain.data
    with pytest.raises(ValueError):
        write_tar(str(root), entries, _CollectingSink(), check=check, measure_at=[1])
