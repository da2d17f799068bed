"""`oraculum wakeups serve --session ID`: the wake-up channel of a host that starts turns itself
(the pi bridge), over JSON lines on stdin and stdout.

The process is a live host process of the session (it holds the session's liveness file, so
the session's jobs are not adopted elsewhere while it runs) and speaks a three-step protocol
over :class:`oraculum.sessions.poller.Poller`, so the host claims only when it can deliver:

- ``{"op": "claim"}`` → ``{"type": "claimed", "wakeups": [...]}``: everything due for the
  session now — finished jobs and background tasks' notices — claimed, each with its message
  in ``text`` (the same facts as an MCP result's ``wakeups``); an empty list when nothing is;
- ``{"op": "commit"}`` → ``{"type": "committed", "ids": [...]}``: the host showed them;
  each attempt is counted and its claim released (then the notify hook runs, best-effort);
  ``ids`` are the job ids and notice ids (``n-…``) of the batch;
- ``{"op": "abandon"}`` → ``{"type": "abandoned", "ids": [...]}``: it could not; the
  claims are released uncounted and the wake-ups stay due.

One batch is held at a time (a second claim is refused until it is committed or abandoned).
The first line out is ``{"type": "ready", ...}``; a bad line gets ``{"type": "error",
"error": {...}}``. End of input abandons a held batch and ends the process, so a host that
dies never leaves a claim behind longer than the claim's expiry.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any, TextIO

import click

from oraculum.cli.base import SESSION, Group
from oraculum.core.bounded import loads_bounded
from oraculum.core.errors import ErrorCode, OracleError

if TYPE_CHECKING:
    from oraculum.sessions.poller import Poller
    from oraculum.sessions.sinks import Sink
    from oraculum.sessions.wakeup import Wakeup

__all__ = ["WakeupChannel", "wakeups_group"]

OPS = ("claim", "commit", "abandon")


@click.group("wakeups", cls=Group, examples=('oraculum wakeups serve --session "$SESSION"',))
def wakeups_group() -> None:
    """Wake-up channels for hosts that deliver wake-ups as turns (JSON lines)."""


class WakeupChannel:
    """The protocol's state: the poller and the batch it holds claimed."""

    def __init__(self, poller: Poller, hook: Sink | None = None) -> None:
        self.poller = poller
        self.hook = hook
        self.held: list[Wakeup] = []

    def handle(self, line: str) -> dict[str, Any]:
        """The answer to one input line (an OracleError for a line that is not an op)."""
        op = parse_op(line)
        if op == "claim":
            return self.claim()
        if op == "commit":
            return self.commit()
        return self.abandon()

    def claim(self) -> dict[str, Any]:
        if self.held:
            raise OracleError(
                ErrorCode.INVALID_ARGUMENT,
                "A claimed batch is still held: commit or abandon it first.",
                details={"ids": [w.job_id for w in self.held]},
            )
        self.held = self.poller.collect()
        return {"type": "claimed", "wakeups": [w.to_dict() for w in self.held]}

    def commit(self) -> dict[str, Any]:
        batch, self.held = self.held, []
        for wakeup in batch:
            self.poller.commit(wakeup)
        for wakeup in batch:
            if self.hook is not None:
                self.hook(wakeup)  # best-effort: a hook sink logs its own failures
        return {"type": "committed", "ids": [w.job_id for w in batch]}

    def abandon(self) -> dict[str, Any]:
        batch, self.held = self.held, []
        for wakeup in batch:
            self.poller.abandon(wakeup)
        return {"type": "abandoned", "ids": [w.job_id for w in batch]}


def parse_op(line: str) -> str:
    """The op a line asks for; refused unless it is ``{"op": <one of OPS>}``."""
    try:
        message = loads_bounded(line)
    except ValueError:
        message = None
    op = message.get("op") if isinstance(message, dict) else None
    if op not in OPS:
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            'Each input line is one JSON object {"op": "claim" | "commit" | "abandon"}.',
            rejected_value=line[:200],
            allowed_values=list(OPS),
        )
    return str(op)


def _write(out: TextIO, message: dict[str, Any]) -> None:
    out.write(json.dumps(message, ensure_ascii=False) + "\n")
    out.flush()


def serve_channel(channel: WakeupChannel, lines: TextIO, out: TextIO) -> None:
    """Answer each input line until end of input, then abandon what is still held."""
    try:
        for line in lines:
            if not line.strip():
                continue
            try:
                _write(out, channel.handle(line))
            except OracleError as error:
                _write(out, {"type": "error", "error": error.to_dict()})
    finally:
        channel.abandon()


@wakeups_group.command("serve")
@SESSION
def serve_command(session: str | None) -> None:
    """Serve the session's wake-up channel on stdin/stdout until stdin closes."""
    from oraculum.core.config import load_config
    from oraculum.core.project import find_project_root, project_id
    from oraculum.core.session import resolve_session_id
    from oraculum.service.wait import advance_councils
    from oraculum.sessions.liveness import SessionLiveness
    from oraculum.sessions.poller import Poller
    from oraculum.sessions.sinks import hook_sink

    session_id = resolve_session_id(session, action="serve its wake-ups")
    assert session_id is not None  # required: resolve raises instead
    root = find_project_root()
    config = load_config(root).config
    hook = config.notify.hook
    poller = Poller(
        project_id(root),
        session_id,
        _shown_by_host,
        surface="mcp",
        after_reconcile=advance_councils,
    )
    channel = WakeupChannel(
        poller, hook_sink(hook, timeout_s=config.notify.timeout_ms / 1000) if hook else None
    )
    with SessionLiveness(project_id(root), session_id):
        _write(
            sys.stdout,
            {
                "type": "ready",
                "sessionId": session_id,
                "projectId": project_id(root),
                "intervalMs": config.poller.interval_ms,
            },
        )
        serve_channel(channel, sys.stdin, sys.stdout)


def _shown_by_host(wakeup: Wakeup) -> None:
    """The poller's sink: never used, since the host shows each claimed batch itself."""
    raise RuntimeError(f"wake-up {wakeup.job_id} must be shown by the host")
