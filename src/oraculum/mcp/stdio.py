"""`oraculum mcp` on stdio: answer the client's opening at once, then hand the stream to the SDK
server.

Importing the MCP SDK costs most of a second of CPU (its protocol models), more than a host
starting many servers should wait for the handshake, and a 2026-07-28 client (Claude Code)
that gets no `server/discover` answer within 2-3 s falls back to `initialize`, which the SDK
then refuses (-32022) on a connection the late discover already made modern. So this entry,
which imports nothing heavy, reads the client's first message; when it is a well-formed
`initialize` or `server/discover` request it answers from :mod:`oraculum.mcp.identity` right
away, then loads the SDK and runs the real server on a spliced stream: the server reads the
same bytes (the opening request included, so its connection state is exactly as if it had
answered), and its own answer is dropped on the way out — after checking that it says the
same thing (a difference is logged on stderr). Any other first message goes to the server
untouched. Requests the client sends meanwhile wait in the pipe until the server is up.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
from pathlib import Path
from typing import Any

from oraculum.core.bounded import loads_bounded
from oraculum.mcp.identity import (
    CLIENT_CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    MODERN_VERSIONS,
    PROTOCOL_VERSION_KEY,
    discover_result,
    initialize_result,
)

log = logging.getLogger("oraculum.mcp")

_CHUNK = 65536
_JOIN_S = 5.0  # how long the output relay may take to pass the server's last bytes on


def serve(*, session: str | None = None, cwd: Path | None = None, profile: str = "oracle") -> None:
    """Run the stdio server until the client closes it."""
    logging.basicConfig(level=logging.WARNING)  # stderr only: stdout is the protocol
    head = _read_first_line(0)
    request = early_answer(head)
    relay: _OutputRelay | None = None
    if request is not None:
        message_id, answer = request
        relay = _OutputRelay(message_id, answer)
        _write_all(1, _frame({"jsonrpc": "2.0", "id": message_id, "result": answer}))
        relay.install()
    _InputSplice(head).install()

    from oraculum.mcp.server import run_stdio  # the SDK loads here, after the answer

    try:
        run_stdio(session=session, cwd=cwd, profile=profile)
    finally:
        if relay is not None:
            relay.finish()


def early_answer(head: bytes) -> tuple[Any, dict[str, Any]] | None:
    """(id, result) for a well-formed `initialize` or `server/discover` request as the first
    line; None otherwise (the SDK then answers whatever it is, errors included)."""
    line = head.split(b"\n", 1)[0]
    try:
        message = loads_bounded(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    message_id = message.get("id")
    params = message.get("params")
    if isinstance(message_id, bool) or not isinstance(message_id, int | str):
        return None
    if not isinstance(params, dict):
        return None
    if message.get("method") == "initialize" and _is_initialize(params):
        return message_id, initialize_result(params["protocolVersion"])
    if message.get("method") == "server/discover" and _is_modern_envelope(params):
        return message_id, discover_result()
    return None


def _is_client_info(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("name"), str)
        and isinstance(value.get("version"), str)
    )


def _is_initialize(params: dict[str, Any]) -> bool:
    return (
        isinstance(params.get("protocolVersion"), str)
        and isinstance(params.get("capabilities"), dict)
        and _is_client_info(params.get("clientInfo"))
    )


def _is_modern_envelope(params: dict[str, Any]) -> bool:
    """A 2026-07-28 envelope at a version the server speaks; another version is the SDK's to
    refuse (-32022, naming the versions it serves)."""
    meta = params.get("_meta")
    if not isinstance(meta, dict) or meta.get(PROTOCOL_VERSION_KEY) not in MODERN_VERSIONS:
        return False
    client = meta.get(CLIENT_INFO_KEY)
    return isinstance(meta.get(CLIENT_CAPABILITIES_KEY), dict) and (
        client is None or _is_client_info(client)
    )


def _read_first_line(fd: int) -> bytes:
    """Everything read until the first newline (or end of input), perhaps a little more."""
    data = b""
    while b"\n" not in data:
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            break
        data += chunk
    return data


def _frame(message: dict[str, Any]) -> bytes:
    return (json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n").encode()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class _InputSplice:
    """fd 0 becomes a pipe that yields ``head`` and then the rest of the real stdin."""

    def __init__(self, head: bytes) -> None:
        self.head = head

    def install(self) -> None:
        real = os.dup(0)
        read_end, write_end = os.pipe()
        os.dup2(read_end, 0)
        os.close(read_end)
        threading.Thread(
            target=self._pump, args=(real, write_end), name="mcp-stdin", daemon=True
        ).start()

    def _pump(self, real: int, write_end: int) -> None:
        try:
            _write_all(write_end, self.head)
            while chunk := os.read(real, _CHUNK):
                _write_all(write_end, chunk)
        except OSError:
            pass  # the server stopped reading: nothing left to pass on
        finally:
            os.close(write_end)  # end of input for the server, as the client's own EOF
            os.close(real)


class _OutputRelay:
    """fd 1 becomes a pipe whose lines go to the real stdout, except the server's own answer to
    the opening request that was already answered."""

    def __init__(self, message_id: Any, answer: dict[str, Any]) -> None:
        self.message_id = message_id
        self.answer = answer
        self.real: int | None = None
        self.thread: threading.Thread | None = None

    def install(self) -> None:
        self.real = os.dup(1)
        read_end, write_end = os.pipe()
        os.dup2(write_end, 1)
        os.close(write_end)
        self.thread = threading.Thread(
            target=self._pump, args=(read_end,), name="mcp-stdout", daemon=True
        )
        self.thread.start()

    def _pump(self, read_end: int) -> None:
        assert self.real is not None
        pending = b""
        dropped = False
        try:
            while chunk := os.read(read_end, _CHUNK):
                if dropped:
                    _write_all(self.real, chunk)
                    continue
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    if not dropped and self._is_answer(line):
                        dropped = True
                        continue
                    _write_all(self.real, line + b"\n")
                if dropped and pending:
                    _write_all(self.real, pending)
                    pending = b""
            if pending:
                _write_all(self.real, pending)
        except OSError:
            pass  # the client went away
        finally:
            os.close(read_end)

    def _is_answer(self, line: bytes) -> bool:
        try:
            message = loads_bounded(line)
        except ValueError:
            return False
        if not isinstance(message, dict) or message.get("id") != self.message_id:
            return False
        if "result" in message or "error" in message:
            if message.get("result") != self.answer:
                log.warning(
                    "oraculum mcp: the early answer differed from the SDK's: %s",
                    json.dumps(message)[:2000],
                )
            return True
        return False

    def finish(self) -> None:
        """Close our end of the output pipe and let the relay pass the last bytes on."""
        sys.stdout.flush()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)  # drops the pipe's last write end this process holds
        os.close(devnull)
        if self.thread is not None:
            self.thread.join(_JOIN_S)
            if self.thread.is_alive():
                return  # a child still holds the pipe: the relay ends with the process
        if self.real is not None:
            os.close(self.real)
            self.real = None
