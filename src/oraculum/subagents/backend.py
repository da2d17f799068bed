"""The backend seam: what the subagent registry needs from one agent CLI.

A backend launches a child for one turn of a conversation (a new one, or a continuation of a
saved session), and the child accepts a prompt, takes steering, aborts, and reports how the
turn ended. The registry never sees a protocol. The first backend is pi's RPC mode
(:mod:`oraculum.subagents.pi_rpc`); a second agent CLI is one more module implementing
:class:`AgentBackend`, handed to :class:`oraculum.subagents.registry.SubagentRegistry`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from oraculum.subagents.spec import LaunchSpec, Routing

__all__ = ["AgentBackend", "AgentChild", "CancelFlag", "TurnOutcome", "TurnStatus"]


class CancelFlag(Protocol):
    """What a turn's waiter polls to know it must stop (a threading.Event is one)."""

    def is_set(self) -> bool: ...


class TurnStatus(StrEnum):
    COMPLETED = "completed"
    FAILED = "failed"
    INTERRUPTED = "interrupted"


@dataclass(frozen=True)
class TurnOutcome:
    """How one turn ended: its final assistant text (may be empty), or why it failed."""

    status: TurnStatus
    text: str
    error: str | None = None


class AgentChild(Protocol):
    """One running child process serving one turn of a conversation."""

    @property
    def session_ref(self) -> str:
        """Where the conversation is saved (it stays after the child exits)."""
        ...

    def prompt(self, text: str) -> None:
        """Send the turn's prompt; return once the child accepted it (else raise)."""
        ...

    def steer(self, text: str) -> None:
        """Add a message to the active turn (delivered before the next model call)."""
        ...

    def abort(self) -> None:
        """Stop the active turn; :meth:`wait_turn` then reports it interrupted."""
        ...

    def wait_turn(self, cancel: CancelFlag, timeout_s: float) -> TurnOutcome:
        """Block until the turn settles, ``cancel`` is set (abort) or the timeout passes."""
        ...

    def hurry(self) -> None:
        """Start stopping at once, without waiting (the owning session ends: its server may be
        killed moments later); :meth:`wait_turn` then reports the turn interrupted."""
        ...

    def close(self) -> None:
        """End the child process and everything it started (idempotent)."""
        ...


class AgentBackend(Protocol):
    """One agent CLI."""

    name: str

    def resolve(self) -> str:
        """The executable, or ``subagent_unavailable``: checked before any launch."""
        ...

    def launch(self, spec: LaunchSpec, routing: Routing, session_ref: str | None) -> AgentChild:
        """Start a child for one turn (``session_ref``: continue that saved conversation)
        and finish its handshake; ``subagent_unavailable`` when it does not come up."""
        ...
