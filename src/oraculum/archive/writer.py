"""Deterministic, streaming tar writer with zstd or gzip compression.

Headers are written by hand in GNU tar format (``tarfile`` costs tens of microseconds per member,
which dominates on trees of many small files). Every header carries normalised ownership
(uid/gid 0, no names), a fixed mtime and normalised permissions, and entries come in sorted
order, so the same tree always gives the same bytes. Names longer than 100 bytes use GNU
``././@LongLink`` records, which carry the exact name bytes, so non-UTF-8 names survive
extraction unchanged.

Memory stays bounded: headers and file contents are read straight into one reusable buffer of
``CHUNK`` bytes, which goes to the compressor whenever it is full, so a large file passes through
in ``CHUNK``-sized pieces and many small ones share a single compressor call.
"""

from __future__ import annotations

import hashlib
import os
import struct
import threading
import time
import zlib
from collections.abc import Callable, Iterable
from typing import IO, Any, BinaryIO, NamedTuple, Protocol, cast

import zstandard

from oraculum.archive.content import CONTENT_CHECK_MAX_BYTES
from oraculum.archive.inputs import FS_ENCODING, FS_ERRORS
from oraculum.archive.selection import Entry, open_regular

BLOCK = 512
CHUNK = 1 << 20
# A fixed member mtime (2000-01-01T00:00:00Z): real mtimes would make every build differ, and 0
# (1970) reads like a bug to whoever unpacks the archive.
ARCHIVE_MTIME = 946_684_800
_ZEROS_VIEW = memoryview(bytes(CHUNK))

# Header fields that never change, with their contribution to the checksum precomputed.
_UID_GID = b"0000000\x00" * 2
_MTIME = b"%011o\x00" % ARCHIVE_MTIME
_MAGIC = b"ustar  \x00"
_CONST_SUM = sum(_UID_GID) + sum(_MTIME) + sum(_MAGIC) + 8 * ord(" ")


def _number(value: int, width: int) -> bytes:
    """An octal field, or GNU base-256 when it does not fit (files of 8 GiB and more)."""
    if value < 8 ** (width - 1):
        return b"%0*o\x00" % (width - 1, value)
    return bytes([0x80]) + value.to_bytes(width - 1, "big")


_OCTAL_SIZE_LIMIT = 8**11


def _mode_field(mode: int) -> tuple[bytes, int]:
    """A mode's header field and its share of the checksum."""
    field = b"%07o\x00" % mode
    return field, sum(field)


# The usual modes' fields, with their checksum contribution.
_MODE_FIELDS = {m: _mode_field(m) for m in (0o644, 0o755, 0o777)}
# A member's padding to the next block, by its length.
_PADS = [bytes(n) for n in range(BLOCK)]


# name, mode, uid+gid, size, mtime, checksum, typeflag, linkname, magic+version, and the
# zero-filled rest (uname, gname, devmajor, devminor, prefix, pad): 512 bytes. ``s`` fields
# are zero-padded and cut to their width by struct itself.
_HEADER = struct.Struct("100s8s16s12s12s8sc100s8s247s")


def _block_into(
    buffer: memoryview | bytearray,
    pos: int,
    name: bytes,
    mode: int,
    size: int,
    typeflag: bytes,
    linkname: bytes,
) -> None:
    """Pack one 512-byte header block into ``buffer`` at ``pos``: the writer's hot loop packs a
    regular file's straight into its buffer, with no bytes object per header."""
    name_f = name[:100]
    mode_f, mode_sum = _MODE_FIELDS.get(mode) or _mode_field(mode)
    size_f = b"%011o\x00" % size if size < _OCTAL_SIZE_LIMIT else _number(size, 12)
    link_f = linkname[:100]
    chksum = _CONST_SUM + sum(name_f) + mode_sum + sum(size_f) + typeflag[0] + sum(link_f)
    checksum_f = b"%06o\x00 " % chksum
    _HEADER.pack_into(
        buffer,
        pos,
        name_f,
        mode_f,
        _UID_GID,
        size_f,
        _MTIME,
        checksum_f,
        typeflag,
        link_f,
        _MAGIC,
        b"",
    )


def _block(name: bytes, mode: int, size: int, typeflag: bytes, linkname: bytes) -> bytes:
    block = bytearray(BLOCK)
    _block_into(block, 0, name, mode, size, typeflag, linkname)
    return bytes(block)


def _padding(size: int) -> bytes:
    """The zeros from the end of ``size`` bytes to the next block."""
    return _PADS[-size % BLOCK]


def _long_record(typeflag: bytes, value: bytes) -> bytes:
    data = value + b"\x00"
    return _block(b"././@LongLink", 0o644, len(data), typeflag, b"") + data + _padding(len(data))


def tar_header(
    name: bytes, *, mode: int, size: int, typeflag: bytes, linkname: bytes = b""
) -> bytes:
    """The header record(s) of one member (pure): GNU long-name records first when needed."""
    out = b""
    if len(linkname) > 100:
        out += _long_record(b"K", linkname)
    if len(name) > 100:
        out += _long_record(b"L", name)
    return out + _block(name, mode, size, typeflag, linkname)


END_OF_ARCHIVE = bytes(2 * BLOCK)


class _HashingFile:
    """The archive file: counts and hashes every byte on its way to disk."""

    def __init__(self, raw: BinaryIO) -> None:
        self.raw: Any = raw  # swapped for a discarding sink on abort
        self.count = 0
        self.digest = hashlib.sha256()

    def write(self, data: bytes | memoryview) -> int:
        self.raw.write(data)
        self.digest.update(data)
        n = len(data)
        self.count += n
        return n

    def flush(self) -> None:
        self.raw.flush()


class Sink(Protocol):
    def write(self, data: bytes | memoryview) -> None: ...
    def mark(self) -> int: ...
    def close(self) -> int: ...
    def abort(self) -> None: ...


# Level 3, the default, tuned for a source tree compressed on a few cores:
# - its match finder's two tables at 2^16 and 2^15 entries (384 KiB together, zstd's own level 3
#   has 768 KiB), so they stay in a core's L2 cache: 8-13 % less compression CPU for archives
#   0.4-0.9 % larger;
# - an 8 MiB window (zstd's level 3 has 2 MiB): trees repeat themselves across files (vendored
#   copies, fixtures, generated code), and a match found is cheaper to encode than literals;
#   a generated 20,000-file tree came out 6 % smaller for 6-15 % less CPU, the standard
#   library alike;
# - 8 MiB jobs for the worker threads (zstd's default is four windows, 32 MiB here), so the
#   workers start after the first 8 MiB and the last job, compressed alone, is short.
_TUNED: dict[int, dict[str, int]] = {
    3: {"hash_log": 16, "chain_log": 15, "window_log": 23, "job_size": 8 << 20}
}


def zstd_parameters(level: int, threads: int) -> zstandard.ZstdCompressionParameters:
    """zstd's parameters for ``level`` (level 3 tuned, above) and ``threads`` workers (-1: one
    per core, 0: none). No frame checksum: the archive's sha256, taken as it is written and kept
    with the job, already covers every byte, and the checksum's xxhash over the uncompressed
    tar cost ~7 % of the compression CPU."""
    return zstandard.ZstdCompressionParameters.from_level(
        level, threads=threads, write_checksum=0, **_TUNED.get(level, {})
    )


class ZstdSink:
    """zstd frame via python-zstandard; with threads the compression runs on zstd's own worker
    threads while this thread keeps reading files."""

    def __init__(self, out: _HashingFile, level: int, threads: int) -> None:
        self.out = out
        cctx = zstandard.ZstdCompressor(compression_params=zstd_parameters(level, threads))
        # python-zstandard only calls write() and flush() on its target; the stub asks for a
        # whole IO[bytes], which _HashingFile deliberately is not.
        self.writer: zstandard.ZstdCompressionWriter | None = cctx.stream_writer(
            cast(IO[bytes], out), closefd=False, write_return_read=True
        )

    def _live(self) -> zstandard.ZstdCompressionWriter:
        if self.writer is None:
            raise RuntimeError("the archive sink was aborted")
        return self.writer

    def write(self, data: bytes | memoryview) -> None:
        self._live().write(data)

    def mark(self) -> int:
        """End the current block so every byte written so far is on disk; return that size."""
        self._live().flush(zstandard.FLUSH_BLOCK)
        return self.out.count

    def close(self) -> int:
        writer = self._live()
        writer.flush(zstandard.FLUSH_FRAME)
        writer.close()  # type: ignore[no-untyped-call]  # the zstandard stub leaves close() unannotated
        return self.out.count

    def abort(self) -> None:
        """Give up without blocking the caller.

        Freeing a multi-threaded zstd context waits for the jobs in flight, and
        python-zstandard does that while holding the GIL, which would stall every thread
        (including one waiting to report a timeout) for as long as those jobs take at high
        levels. So a daemon thread finishes the frame into a discarding sink, with the GIL
        released, and drops the context once it is idle.
        """
        self.out.raw = _Discard()
        writer, self.writer = self.writer, None
        threading.Thread(target=_finish_quietly, args=(writer,), daemon=True).start()


class _Discard:
    def write(self, data: bytes | memoryview) -> int:
        return len(data)

    def flush(self) -> None:
        return None


def _finish_quietly(writer: Any) -> None:
    try:
        writer.flush(zstandard.FLUSH_FRAME)
    except Exception:  # the frame is thrown away; nothing to report
        return


class GzipSink:
    """gzip via zlib (header with mtime 0 and no file name, so output is deterministic)."""

    def __init__(self, out: _HashingFile, level: int) -> None:
        self.out = out
        self.z = zlib.compressobj(level, zlib.DEFLATED, 31)

    def write(self, data: bytes | memoryview) -> None:
        chunk = self.z.compress(data)
        if chunk:
            self.out.write(chunk)

    def mark(self) -> int:
        self.out.write(self.z.flush(zlib.Z_SYNC_FLUSH))
        return self.out.count

    def close(self) -> int:
        self.out.write(self.z.flush(zlib.Z_FINISH))
        return self.out.count

    def abort(self) -> None:
        return None  # zlib holds no threads


# (entry, its whole content) -> whether it is left out: see write_tar.
ContentCheck = Callable[[Entry, memoryview], bool]


class WriteTimeout(Exception):
    """The deadline passed (or the caller gave up) while writing."""


class WriteStats(NamedTuple):
    """What one pass wrote. ``offsets[i]`` is where entry i starts in the tar stream
    (``offsets[-1]`` is the end of the last member); ``points`` pairs tar offsets with
    compressed offsets measured at block boundaries, from (0, 0) to the totals."""

    size: int
    sha256: str
    tar_bytes: int
    offsets: list[int]
    points: list[tuple[int, int]]
    written: list[bool]
    skipped: list[tuple[str, str]]


def _check(deadline: float | None, cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise WriteTimeout
    if deadline is not None and time.monotonic() > deadline:
        raise WriteTimeout


def write_tar(
    root: str,
    entries: Iterable[Entry],
    sink: Sink,
    *,
    measure_at: Iterable[int] = (),
    deadline: float | None = None,
    cancel: threading.Event | None = None,
    opened: Callable[[Entry], int] | None = None,
    check: ContentCheck | None = None,
) -> tuple[list[int], list[tuple[int, int]], list[bool], list[tuple[str, str]]]:
    """Stream ``entries`` (already sorted; any iterable, read once) from ``root`` into ``sink``
    as one tar.

    Before each entry index in ``measure_at`` (and at the end, index ``len(entries)``) the
    compressor is flushed and the (tar offset, compressed offset) pair recorded, so a range of
    entries' compressed size can be read off exactly.

    ``opened(entry)``, when given, opens each file for the writer (a selection stream's
    :meth:`~oraculum.archive.selection.SelectionStream.open_member`): it returns the descriptor,
    which the writer closes (the member's size is the entry's), or -1 when the file cannot be
    read; the entry is then left out altogether (no offset, no ``written`` flag) and its reason
    is the stream's to report. Without it the writer opens each file itself and reports a file
    it cannot open in ``skipped``, with ``written`` False.

    ``check(entry, content)``, when given, sees the whole content of every regular file of at
    most ``CONTENT_CHECK_MAX_BYTES`` (a selection stream's
    :meth:`~oraculum.archive.selection.SelectionStream.check_content`): the bytes just read
    into the buffer, still there to take back. When it returns True the member is taken back
    and left out altogether, as an unopenable one is; the reason is the stream's to report.
    """
    measure = set(measure_at)
    if check is not None and measure:
        raise ValueError("a content check takes members back: no measure points with it")
    measure.discard(0)  # (0, 0) is known without flushing
    # Members are opened relative to the root's descriptor: no path string to build and no
    # root prefix for the kernel to walk again for every file.
    root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        tar = _TarPass(sink, root_fd, opened, measure, deadline, cancel, check)
        _write_members(entries, tar)
        return tar.offsets, tar.points, tar.written, tar.skipped
    finally:
        os.close(root_fd)


class _TarPass:
    """One ``write_tar`` pass: where members come from and go, when to stop, and what was
    written (the four lists ``write_tar`` returns, filled in by ``_write_members``).

    ``_write_members`` is the hot loop, once per member. Headers and file contents are placed
    straight into one reusable buffer (contents read into it, so no bytes object per file and
    no extra copy), and the buffer goes to the sink whenever it is full: the compressor copies
    its input before write() returns. Every member starts at a multiple of BLOCK and the
    buffer's size is one too, so a member's padding always fits behind it. A regular file with
    a short name takes one call, ``pack_file``: header, content, padding. The methods here are
    the rare paths (a full buffer, the rest of a file larger than the buffer's room, a measure
    point, a file the writer cannot open)."""

    def __init__(
        self,
        sink: Sink,
        root_fd: int,
        opened: Callable[[Entry], int] | None,
        measure: set[int],
        deadline: float | None,
        cancel: threading.Event | None,
        check: ContentCheck | None,
    ) -> None:
        self.sink, self.root_fd, self.opened, self.measure = sink, root_fd, opened, measure
        self.deadline, self.cancel, self.check = deadline, cancel, check
        self.offsets: list[int] = []
        self.points: list[tuple[int, int]] = [(0, 0)]
        self.written: list[bool] = []
        self.skipped: list[tuple[str, str]] = []

    def drain(self, data: memoryview, flushed: int) -> int:
        """Hand the buffer's bytes in use to the sink; return the tar bytes handed over."""
        self.sink.write(data)
        return flushed + len(data)

    def room(self, view: memoryview, pos: int, flushed: int, need: int) -> tuple[int, int]:
        """Drain the buffer unless ``need`` bytes fit behind ``pos``; the new (flushed, pos).
        A member the content check may take back must lie whole in the buffer."""
        if CHUNK - pos < need:
            flushed, pos = self.drain(view[:pos], flushed), 0
        return flushed, pos

    def place(self, view: memoryview, pos: int, flushed: int, header: bytes) -> tuple[int, int]:
        """Put ``header`` in the buffer at ``pos``, draining it first if there is no room;
        the new (flushed, pos)."""
        if CHUNK - pos < len(header):
            flushed, pos = self.drain(view[:pos], flushed), 0
        view[pos : pos + len(header)] = header
        return flushed, pos + len(header)

    def rest(
        self, view: memoryview, pos: int, flushed: int, fd: int, left: int, size: int
    ) -> tuple[int, int]:
        """The last ``left`` bytes of a member of ``size`` bytes, draining the buffer whenever
        it is full, and its padding; the new (flushed, pos)."""
        while left:
            if pos == CHUNK:
                _check(self.deadline, self.cancel)
                flushed, pos = self.drain(view, flushed), 0
            pos, left = _read_into(view, pos, fd, left)
        return flushed, _pad(view, pos, size)

    def measure_point(self, data: memoryview, flushed: int) -> int:
        """Drain, then record where the tar and the compressed stream stand."""
        flushed = self.drain(data, flushed)
        self.points.append((flushed, self.sink.mark()))
        return flushed

    def skip(self, path: str, failure: str) -> None:
        """A member the writer could not open: reported, with ``written`` False."""
        self.skipped.append((path, failure))
        self.written.append(False)


def _open_own(name: bytes, root_fd: int, size: int) -> tuple[int, int, str | None]:
    """A member the writer opens itself: (descriptor, its fstat size, None), or (-1, the
    entry's size, why it cannot be read)."""
    got_open = open_regular(name, root_fd)
    if isinstance(got_open, str):
        return -1, size, got_open
    return got_open[0], got_open[1].st_size, None


def _write_members(entries: Iterable[Entry], tar: _TarPass) -> None:
    """Place every member (the hot loop: see :class:`_TarPass`), then the archive's end."""
    view, pos, flushed = memoryview(bytearray(CHUNK)), 0, 0  # pos: in use; flushed: sent on
    os_close, enc, errors, pack = os.close, FS_ENCODING, FS_ERRORS, pack_file
    opened, root_fd, measure, check = tar.opened, tar.root_fd, tar.measure, tar.check
    offsets, written, deadline, cancel = tar.offsets, tar.written, tar.deadline, tar.cancel
    checked_max = CONTENT_CHECK_MAX_BYTES if check is not None else -1
    for i, entry in enumerate(entries):
        if not i & 63:
            _check(deadline, cancel)
        path, kind, size, mode, target = entry
        name = path.encode(enc, errors)
        fd, failure = -1, None
        if kind != "symlink":
            # Opened before the member is placed: a file that cannot be read has no place.
            if opened is None:
                fd, size, failure = _open_own(name, root_fd, size)
            elif (fd := opened(entry)) < 0:
                continue
        try:
            if measure and len(offsets) in measure:  # measure points count members placed
                flushed, pos = tar.measure_point(view[:pos], flushed), 0
            offsets.append(flushed + pos)
            if failure is not None:
                tar.skip(path, failure)
                continue
            checked = size <= checked_max and kind == "file"
            if kind == "symlink" or len(name) > 100:
                header = _other_header(name, kind, size, mode, target.encode(enc, errors))
                checked = checked and len(header) + size + BLOCK <= CHUNK
                if checked:
                    flushed, pos = tar.room(view, pos, flushed, len(header) + size + BLOCK)
                start = pos
                flushed, pos = tar.place(view, pos, flushed, header)
                content, left = pos, size
            else:  # the common case: a regular file, packed with as much content as fits
                if pos == CHUNK or (checked and CHUNK - pos < BLOCK + size + BLOCK):
                    flushed, pos = tar.drain(view[:pos], flushed), 0
                start, content = pos, pos + BLOCK
                pos, left = pack(view, pos, fd, name, mode, size)
            if left:
                flushed, pos = tar.rest(view, pos, flushed, fd, left, size)
            if checked and check is not None and check(entry, view[content : content + size]):
                offsets.pop()  # taken back: the next member goes where this one was
                pos = start
                continue
        finally:
            if fd >= 0:
                os_close(fd)
        written.append(True)
    offsets.append(flushed + pos)
    tar.drain(view[:pos], flushed)
    tar.sink.write(END_OF_ARCHIVE)


def _read_into(view: memoryview, pos: int, fd: int, left: int) -> tuple[int, int]:
    """Read up to ``left`` bytes of ``fd`` into ``view`` from ``pos`` until it is full; the new
    position and what is still to read. A file that shrank after fstat is padded with zeros to
    the size in its header."""
    end = len(view)
    while left and pos < end:
        want = min(left, end - pos)
        got = os.readv(fd, [view[pos : pos + want]]) or _zero_fill(view, pos, want)
        pos += got
        left -= got
    return pos, left


def _pad(view: memoryview, pos: int, size: int) -> int:
    """Zeros to the end of a member's last block; the position behind them."""
    pad = _padding(size)
    view[pos : pos + len(pad)] = pad
    return pos + len(pad)


def pack_file(
    view: memoryview, pos: int, fd: int, name: bytes, mode: int, size: int
) -> tuple[int, int]:
    """Pack a regular file (its name at most 100 bytes) at ``pos``: header, then as much
    content as fits, then its padding if it all did; the new position and the content still to
    read: the writer's hot path."""
    if len(name) > 100 or pos % BLOCK or len(view) - pos < BLOCK:
        raise ValueError("a name over 100 bytes, or no block boundary with a block of room")
    _block_into(view, pos, name, mode, size, b"0", b"")
    pos, left = _read_into(view, pos + BLOCK, fd, size)
    return (pos, left) if left else (_pad(view, pos, size), 0)


def _zero_fill(view: memoryview, pos: int, length: int) -> int:
    view[pos : pos + length] = _ZEROS_VIEW[:length]
    return length


def _other_header(name: bytes, kind: str, size: int, mode: int, target: bytes) -> bytes:
    """The header record(s) of a symlink or a long name."""
    if kind == "symlink":
        return tar_header(name, mode=0o777, size=0, typeflag=b"2", linkname=target)
    return tar_header(name, mode=mode, size=size, typeflag=b"0")


def write_archive(
    root: str,
    entries: Iterable[Entry],
    raw: BinaryIO,
    *,
    compression: str,
    level: int,
    threads: int,
    measure_at: Iterable[int] = (),
    deadline: float | None = None,
    cancel: threading.Event | None = None,
    opened: Callable[[Entry], int] | None = None,
    check: ContentCheck | None = None,
) -> WriteStats:
    """Write one complete compressed archive of ``entries`` to the open file ``raw``."""
    out = _HashingFile(raw)
    sink: Sink = ZstdSink(out, level, threads) if compression == "zstd" else GzipSink(out, level)
    try:
        offsets, points, written, skipped = write_tar(
            root,
            entries,
            sink,
            measure_at=measure_at,
            deadline=deadline,
            cancel=cancel,
            opened=opened,
            check=check,
        )
    except BaseException:
        sink.abort()
        raise
    measured_end = sink.mark() if len(points) > 1 else None
    size = sink.close()
    tar_bytes = offsets[-1] + len(END_OF_ARCHIVE)
    if measured_end is not None:
        points.append((offsets[-1], measured_end))
    points.append((tar_bytes, size))
    return WriteStats(
        size=size,
        sha256=out.digest.hexdigest(),
        tar_bytes=tar_bytes,
        offsets=offsets,
        points=points,
        written=written,
        skipped=skipped,
    )
