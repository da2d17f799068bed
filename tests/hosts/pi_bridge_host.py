"""Driving a real pi with the oraculum pi package (`integrations/pi`) installed.

`pi install <path>` records the package in the agent dir's `settings.json` (a local path is
loaded in place, nothing is fetched). pi's environment carries the test home's `ORACULUM_*`
variables and `ORACULUM_BIN` (the venv's `oraculum`), which the package's CLI calls inherit.
`--session-id` gives the run a persisted pi session, whose id is the oraculum session.

Print mode is one `pi -p` run; RPC mode (`pi --mode rpc`) is a long-lived process driven by
JSON lines on stdin, its records (responses, events, extension UI requests) kept in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import pty
import re
import struct
import termios
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from .host_tools import REPO
from .pi_host import (
    ORACULUM_VARIABLES,
    PROVIDER,
    PiHome,
    models_config,
    oraculum_executable,
    pi_environment,
    run_pi,
)
from .scripted_model import MODEL_ID, ScriptedModel, message_text, pair_tool_calls

PACKAGE = REPO / "integrations" / "pi"
RECORD_LIMIT = 16 * 2**20  # one RPC record may carry a whole transcript
_ESCAPES = re.compile(rb"\x1b\[[0-9;?>]*[a-zA-Z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?")


def bridge_results(model: ScriptedModel, tool: str) -> list[str]:
    """The results pi sent back for every call of one bridge tool, in order."""
    messages = model.requests[-1]["messages"] if model.requests else []
    return [e.result or "" for e in pair_tool_calls(messages) if e.name == tool]


def text_count(model: ScriptedModel, needle: str) -> int:
    """How often ``needle`` occurs in the conversation pi last sent its model."""
    messages = model.requests[-1]["messages"] if model.requests else []
    return sum(message_text(m.get("content")).count(needle) for m in messages)


@dataclass(frozen=True)
class PiBridgeHost(PiHome):
    def environment(self) -> dict[str, str]:
        """pi's own minimal environment, and what the package's oraculum calls need."""
        return {
            **pi_environment(self.root),
            "ORACULUM_BIN": str(oraculum_executable()),
            **{name: os.environ[name] for name in ORACULUM_VARIABLES},
        }

    async def install(self, base_url: str) -> None:
        """Point pi at the scripted model and `pi install` the package from its path."""
        self.agent_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        models = self.agent_dir / "models.json"
        models.write_text(json.dumps(models_config(base_url), indent=2))
        models.chmod(0o600)
        code, out, err = await run_pi(
            [*self.tools.pi, "install", str(PACKAGE)],
            cwd=self.project,
            env=self.environment(),
            timeout_s=120,
            what="pi install",
        )
        assert code == 0, (out + err).decode(errors="replace")[-3000:]

    def argv(self, *mode: str, persisted: bool = True) -> list[str]:
        """pi's command line; without ``persisted`` the session lives in memory only."""
        session = (
            ["--session-dir", str(self.root / "sessions"), "--session-id", self.session]
            if persisted
            else ["--no-session"]
        )
        return [
            *self.tools.pi,
            *mode,
            "--model",
            f"{PROVIDER}/{MODEL_ID}",
            *session,
            "--no-context-files",
            "--no-skills",
        ]

    async def print_run(
        self,
        prompt: str,
        timeout_s: float = 120.0,
        *,
        persisted: bool = True,
        profile: str | None = None,
    ) -> tuple[int, str, str]:
        """One `pi -p` run (with `--oraculum-profile` when given): (exit code, stdout, stderr)."""
        chosen = ["--oraculum-profile", profile] if profile else []
        code, out, err = await run_pi(
            [*self.argv("-p", persisted=persisted), *chosen, prompt],
            cwd=self.project,
            env=self.environment(),
            timeout_s=timeout_s,
            what="pi -p",
        )
        return code, out.decode(errors="replace"), err.decode(errors="replace")

    @contextlib.asynccontextmanager
    async def rpc(self) -> AsyncIterator[RpcPi]:
        """A `pi --mode rpc` process for the duration of the block; closed by closing stdin."""
        proc = await asyncio.create_subprocess_exec(
            *self.argv("--mode", "rpc"),
            cwd=self.project,
            env=self.environment(),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            limit=RECORD_LIMIT,
        )
        client = RpcPi(proc)
        client.reader = asyncio.create_task(client.read())
        try:
            yield client
        finally:
            await client.close()

    @contextlib.asynccontextmanager
    async def tui(self) -> AsyncIterator[TuiPi]:
        """The interactive TUI on a pseudo-terminal (120x40) for the duration of the block."""
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        proc = await asyncio.create_subprocess_exec(
            *self.argv(),
            cwd=self.project,
            env={**self.environment(), "TERM": "xterm-256color"},
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
        )
        os.close(slave)
        screen = TuiPi(proc, master)
        asyncio.get_running_loop().add_reader(master, screen.read)
        try:
            yield screen
        finally:
            await screen.close()


@dataclass
class TuiPi:
    proc: asyncio.subprocess.Process
    master: int
    output: bytearray = field(default_factory=bytearray)

    def read(self) -> None:
        try:
            self.output.extend(os.read(self.master, 65536))
        except OSError:  # the terminal closed
            asyncio.get_running_loop().remove_reader(self.master)

    @property
    def text(self) -> str:
        """Everything pi drew, without terminal escapes."""
        return _ESCAPES.sub(b"", bytes(self.output)).decode(errors="replace")

    async def until(self, check: Callable[[], bool], what: str, timeout_s: float = 180.0) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while not check():
            if loop.time() > deadline:
                raise AssertionError(f"timed out waiting for {what}; screen: {self.text[-2000:]}")
            await asyncio.sleep(0.05)

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    async def close(self) -> None:
        for key in (b"\x03", b"\x03", b"\x04"):  # ctrl+c clears, ctrl+d exits
            if self.proc.returncode is None:
                with contextlib.suppress(OSError):
                    os.write(self.master, key)
                await asyncio.sleep(0.3)
        try:
            await asyncio.wait_for(self.proc.wait(), 30)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()
        with contextlib.suppress(ValueError, OSError):
            asyncio.get_running_loop().remove_reader(self.master)
        os.close(self.master)


@dataclass
class RpcPi:
    proc: asyncio.subprocess.Process
    records: list[dict[str, Any]] = field(default_factory=list)
    reader: asyncio.Task[None] | None = None

    async def read(self) -> None:
        assert self.proc.stdout is not None
        while line := await self.proc.stdout.readline():  # splits on LF only
            if line.strip():
                self.records.append(json.loads(line))

    async def send(self, command: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(command).encode() + b"\n")
        await self.proc.stdin.drain()

    async def until(self, check: Callable[[], bool], what: str, timeout_s: float = 180.0) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while not check():
            if self.proc.returncode is not None:
                raise AssertionError(f"pi exited ({self.proc.returncode}) waiting for {what}")
            if loop.time() > deadline:
                raise AssertionError(f"timed out waiting for {what}; pi said: {self.summary()}")
            await asyncio.sleep(0.05)

    def summary(self) -> str:
        """The kinds of record pi wrote, in order (for a failure message)."""
        kinds = [
            str(r.get("method") or r.get("command") or r.get("type"))
            + (
                f"={r.get('statusText') or r.get('message') or r.get('error')}"
                if r.get("type") in ("response", "extension_ui_request")
                else ""
            )
            for r in self.records
            if r.get("type") not in ("message_update", "tool_execution_update")
        ]
        return ", ".join(kinds)[-4000:]

    def notices(self) -> list[str]:
        """The messages the extension showed with `ctx.ui.notify`, in order."""
        return [
            str(r.get("message", ""))
            for r in self.records
            if r.get("type") == "extension_ui_request" and r.get("method") == "notify"
        ]

    def statuses(self, key: str) -> list[str]:
        """What the extension put in the footer under ``key``, in order."""
        return [
            r.get("statusText", "")
            for r in self.records
            if r.get("type") == "extension_ui_request"
            and r.get("method") == "setStatus"
            and r.get("statusKey") == key
        ]

    def settled(self) -> int:
        return sum(1 for r in self.records if r.get("type") == "agent_settled")

    async def close(self) -> None:
        if self.proc.stdin is not None and not self.proc.stdin.is_closing():
            self.proc.stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), 30)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()
        if self.reader is not None:
            await self.reader
