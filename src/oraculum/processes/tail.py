"""Bounded output of a child: the last (or first) bytes of a stream, and UTF-8-safe cuts of them.

The one reader of a child's pipe: :func:`read_into` drains it to its end on a thread of its own
(so the child never blocks on a full pipe) into a :class:`Tail` that keeps at most its capacity
however much arrives, counting the rest.

A process writes bytes; a reader wants text. Cutting a byte buffer can split a character, so a
cut at the start skips the continuation bytes of a character whose lead byte fell off, and a
cut at the end holds back a character whose last bytes have not arrived yet. Both are counted,
never guessed at with replacement characters.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import IO

__all__ = ["Tail", "TailSnapshot", "read_into", "utf8_safe_slice"]

_CHUNK = 65536


def _is_continuation(byte: int) -> bool:
    return byte & 0xC0 == 0x80


def _sequence_length(lead: int) -> int:
    if lead < 0x80:
        return 1
    if lead >> 5 == 0b110:
        return 2
    if lead >> 4 == 0b1110:
        return 3
    if lead >> 3 == 0b11110:
        return 4
    return 1  # an invalid lead byte stands alone (decoded with a replacement character)


def _safe_start(data: bytes) -> int:
    """Index of the first byte that begins a character (at most three are skipped)."""
    start = 0
    while start < min(3, len(data)) and _is_continuation(data[start]):
        start += 1
    return start


def _safe_end(data: bytes) -> int:
    """Length of ``data`` without a trailing character whose bytes are not all there yet."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if _is_continuation(byte):
            continue
        return len(data) if _sequence_length(byte) <= back else len(data) - back
    return len(data)


def utf8_safe_slice(data: bytes, *, keep_end: bool = False) -> tuple[bytes, int, int]:
    """``data`` cut to whole characters: (the bytes, skipped at the start, held at the end).
    ``keep_end``: the stream ended, so a trailing partial character will never complete and
    is kept (decoded as a replacement character)."""
    start = _safe_start(data)
    end = len(data) if keep_end else max(start, _safe_end(data))
    return data[start:end], start, len(data) - end


@dataclass(frozen=True)
class TailSnapshot:
    text: str
    # bytes not shown (dropped from the buffer or cut off by the limit): the earlier ones, or
    # with ``first`` the later ones
    omitted_bytes: int
    total_bytes: int  # every byte the stream produced so far


class Tail:
    """The last ``capacity`` bytes of one stream, or with ``first`` its first ``capacity``
    bytes (thread-safe: a reader thread appends)."""

    def __init__(self, capacity: int, *, first: bool = False) -> None:
        self.capacity = capacity
        self.first = first
        self._buffer = bytearray()
        self._total = 0
        self._closed = False
        self._lock = threading.Lock()

    def append(self, chunk: bytes) -> None:
        with self._lock:
            self._total += len(chunk)
            if self.first:
                self._buffer += chunk[: max(0, self.capacity - len(self._buffer))]
                return
            self._buffer += chunk
            excess = len(self._buffer) - self.capacity
            if excess > 0:
                del self._buffer[:excess]

    def close(self) -> None:
        with self._lock:
            self._closed = True

    @property
    def total_bytes(self) -> int:
        with self._lock:
            return self._total

    def snapshot(self, max_bytes: int) -> TailSnapshot:
        """At most ``max_bytes`` of the kept output (the newest, or with ``first`` the
        earliest), cut at character boundaries."""
        with self._lock:
            if max_bytes <= 0:
                raw = b""
            elif self.first:
                raw = bytes(self._buffer[:max_bytes])
            else:
                raw = bytes(self._buffer[-max_bytes:])
            total, closed = self._total, self._closed
        if self.first:  # an end cut short never completes: its partial character is dropped
            data, _skipped, _cut = utf8_safe_slice(raw, keep_end=closed and len(raw) == total)
            held = 0
        else:
            data, _skipped, held = utf8_safe_slice(raw, keep_end=closed)
        shown = len(data)
        return TailSnapshot(
            text=data.decode("utf-8", errors="replace"),
            omitted_bytes=total - shown - held,
            total_bytes=total,
        )


def _drain(stream: IO[bytes], tail: Tail) -> None:
    try:
        while chunk := os.read(stream.fileno(), _CHUNK):
            tail.append(chunk)
    except (OSError, ValueError):
        pass  # the pipe broke or was closed under us: what arrived is kept
    finally:
        tail.close()
        stream.close()


def read_into(stream: IO[bytes], tail: Tail) -> threading.Thread:
    """Read ``stream`` (a child's pipe) to its end into ``tail`` on a daemon thread, then close
    both; join the returned thread to know everything arrived."""
    thread = threading.Thread(target=_drain, args=(stream, tail), daemon=True)
    thread.start()
    return thread
