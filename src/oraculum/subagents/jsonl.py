"""A JSONL command channel over a child's stdio: one JSON object per record, split on LF only.

Records are read as bytes and split on ``b"\\n"`` (an optional ``\\r`` before it dropped), never
with a text line reader: U+2028 and U+2029 are valid inside JSON strings and must not end a
record. A reader thread sorts what arrives: a ``response`` carrying an ``id`` wakes the command
waiting for it; everything else is an event, queued in order. End of stdout queues ``None``.
Stderr is kept as a bounded tail for diagnostics and never parsed.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import queue
import subprocess
import threading
from dataclasses import dataclass, field
from typing import IO, Any

from oraculum.processes.tail import Tail, read_into

__all__ = ["STDERR_TAIL_BYTES", "ChannelClosed", "JsonlChannel", "split_records"]

log = logging.getLogger("oraculum.subagents")

STDERR_TAIL_BYTES = 4_000
_MAX_RECORD_BYTES = 64 * 1024 * 1024  # a record larger than this is a broken child


class ChannelClosed(Exception):
    """The child's stdout ended (or its stdin broke) before the answer came."""


def split_records(buffer: bytes) -> tuple[list[bytes], bytes]:
    """Complete records in ``buffer`` and the unfinished rest (pure)."""
    *complete, rest = buffer.split(b"\n")
    return [r[:-1] if r.endswith(b"\r") else r for r in complete if r.strip()], rest


@dataclass
class _Pending:
    done: threading.Event = field(default_factory=threading.Event)
    response: dict[str, Any] | None = None


class JsonlChannel:
    """Commands in, responses and events out, for one child process."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdin and process.stdout and process.stderr  # started with PIPEs
        self.process = process
        self.events: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._stdin = process.stdin
        self._write_lock = threading.Lock()
        self._pending: dict[str, _Pending] = {}
        self._pending_lock = threading.Lock()
        self._ids = itertools.count(1)
        self._closed = threading.Event()
        self._stderr = Tail(STDERR_TAIL_BYTES)
        reader = threading.Thread(target=self._read, args=(process.stdout,), daemon=True)
        reader.start()
        self._threads = [reader, read_into(process.stderr, self._stderr)]

    @property
    def stderr_tail(self) -> str:
        return self._stderr.snapshot(STDERR_TAIL_BYTES).text

    def request(self, command: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """Send ``command`` with a fresh id; its response, or ChannelClosed/TimeoutError."""
        request_id = f"oraculum-{next(self._ids)}"
        pending = _Pending()
        with self._pending_lock:
            if self._closed.is_set():
                raise ChannelClosed("the child's output has ended")
            self._pending[request_id] = pending
        try:
            self.send({**command, "id": request_id})
            if not pending.done.wait(timeout_s):
                raise TimeoutError(f"no response to {command.get('type')} in {timeout_s:g}s")
        finally:
            with self._pending_lock:
                self._pending.pop(request_id, None)
        if pending.response is None:
            raise ChannelClosed("the child's output ended before its response")
        return pending.response

    def send(self, record: dict[str, Any]) -> None:
        data = json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n"
        try:
            with self._write_lock:
                self._stdin.write(data)
                self._stdin.flush()
        except (BrokenPipeError, ValueError, OSError) as exc:
            raise ChannelClosed(f"the child's input is closed: {exc}") from None

    def close_input(self) -> None:
        """Closing stdin asks the child for an orderly shutdown."""
        try:
            with self._write_lock:
                self._stdin.close()
        except OSError:
            pass

    def join(self, timeout_s: float) -> None:
        for thread in self._threads:
            thread.join(timeout_s)

    def _read(self, stream: IO[bytes]) -> None:
        buffer = b""
        try:
            while chunk := os.read(stream.fileno(), 65536):
                records, buffer = split_records(buffer + chunk)
                if len(buffer) > _MAX_RECORD_BYTES:
                    log.warning("a child record exceeds %d bytes; dropping it", _MAX_RECORD_BYTES)
                    buffer = b""
                for raw in records:
                    self._dispatch(raw)
        except OSError:
            pass
        finally:
            self._finish()

    def _dispatch(self, raw: bytes) -> None:
        try:
            record = json.loads(raw)
        except ValueError:
            log.warning("a child wrote a line that is not JSON: %r", raw[:200])
            return
        if not isinstance(record, dict):
            return
        if record.get("type") == "response" and isinstance(record.get("id"), str):
            with self._pending_lock:
                pending = self._pending.get(record["id"])
            if pending is not None:
                pending.response = record
                pending.done.set()
                return
        self.events.put(record)

    def _finish(self) -> None:
        with self._pending_lock:
            self._closed.set()
            waiting = list(self._pending.values())
        for pending in waiting:
            pending.done.set()  # their response stays None: ChannelClosed
        self.events.put(None)
