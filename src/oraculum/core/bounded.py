"""Bounded reads of files a project or a user names: a config, a prompt file.

A file a repository or a user names may be a symlink to ``/dev/zero``, a FIFO nobody writes, a
gigabyte, or JSON nested a million deep: each would hang, exhaust memory or crash if read
plainly. Every such read goes through :func:`read_bounded`, and every such JSON through
:func:`json_depth` before it is parsed.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any


class InputRefused(Exception):
    """:func:`read_bounded` refused a file: ``reason`` says why in words; ``size`` is set when
    the reason is its size (the bytes seen, at least one past the cap)."""

    def __init__(self, reason: str, *, size: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.size = size


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def read_bounded(path: Path | str, cap: int, *, inside: Path | None = None) -> bytes:
    """The bytes of the regular file ``path``, at most ``cap`` of them.

    The file is checked as a regular file before it is opened (opening a FIFO blocks; opening
    a device can act), opened non-blocking and without following a last symlink, checked again
    on the open descriptor (the same file), and read up to ``cap + 1`` bytes, so a file that
    grows meanwhile is refused too. With ``inside``, the path must resolve to a file under that
    directory (a project file whose symlink leaves the project is refused).

    Raises ``FileNotFoundError``/``NotADirectoryError`` when there is no such file, any other
    OSError as it comes, and :class:`InputRefused` for every refusal.
    """
    real = os.path.realpath(path)
    if inside is not None:
        root = os.path.realpath(inside)
        if os.path.commonpath([root, real]) != root:
            raise InputRefused(f"resolves outside {root} (to {real})")
    before = os.stat(real)
    if not stat.S_ISREG(before.st_mode):
        raise InputRefused(f"is {_kind(before.st_mode)}, not a regular file")
    if before.st_size > cap:
        raise InputRefused(f"has {before.st_size} bytes (limit {cap})", size=before.st_size)
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC
    fd = os.open(real, flags)
    try:
        after = os.fstat(fd)
        if (after.st_dev, after.st_ino) != (before.st_dev, before.st_ino):
            raise InputRefused("was replaced while it was being opened")
        chunks: list[bytes] = []
        seen = 0
        while seen <= cap:
            chunk = os.read(fd, cap + 1 - seen)
            if not chunk:
                break
            chunks.append(chunk)
            seen += len(chunk)
    finally:
        os.close(fd)
    if seen > cap:
        raise InputRefused(f"has more than {cap} bytes (limit {cap})", size=seen)
    return b"".join(chunks)


_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_JSON_BRACKET = re.compile(rb"[\[\]{}]")


def json_depth(data: bytes) -> int:
    """How deeply ``data``'s arrays and objects nest (brackets inside strings do not count).

    Measured before parsing: ``json.loads`` recurses once per level, so a document nested
    200,000 deep ends in RecursionError (an internal error) instead of a refusal.
    """
    depth = deepest = 0
    for bracket in _JSON_BRACKET.finditer(_JSON_STRING.sub(b"", data)):
        if bracket.group() in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


# What any message or file oraculum parses may nest: far above every real document.
MAX_JSON_DEPTH = 64


class JsonTooDeep(ValueError):
    """A JSON document nested deeper than allowed (a ValueError, as a parse error is)."""


def loads_bounded(data: bytes | str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads(data)``, refusing a document nested deeper than ``max_depth`` before it is
    parsed (:class:`JsonTooDeep`, a ValueError: callers that handle bad JSON handle it too)."""
    depth = json_depth(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    if depth > max_depth:
        raise JsonTooDeep(f"JSON nested {depth} levels deep (the limit is {max_depth})")
    return json.loads(data)
