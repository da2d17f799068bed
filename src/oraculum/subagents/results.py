"""What a subagent call returns, in frozen results the MCP tools and `oraculum subagent` both
render (``to_json()``, ``text(surface)``; see :mod:`oraculum.service.result`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from oraculum.core.surface import Surface

__all__ = ["SubagentList", "SubagentSignal", "SubagentTurn"]


@dataclass(frozen=True)
class SubagentTurn:
    """A turn a call started: accepted (its one pong comes later, as ``task_id``) or, waited
    for, ended (``result``: ``{ok, title, text, errorCode}``)."""

    conversation: dict[str, Any]  # the conversation's view after the call
    task_id: str | None = None
    result: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        if self.result is not None:
            return {**self.conversation, "result": self.result}
        return {**self.conversation, "taskId": self.task_id}

    def text(self, surface: Surface) -> str:
        who = f"subagent {self.conversation['id']}"
        if self.result is None:
            return f"{who} accepted the prompt."
        return (
            f"{who}'s turn ended ({self.conversation['state']}); its result:\n"
            + (self.result["text"])
        )


@dataclass(frozen=True)
class SubagentSignal:
    """Steering queued for, or an interruption of, an active turn."""

    subagent_id: str
    action: Literal["steered", "interrupted"]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.subagent_id, self.action: True}

    def text(self, surface: Surface) -> str:
        if self.action == "steered":
            return f"subagent {self.subagent_id}: steering queued for its active turn."
        return f"subagent {self.subagent_id} interrupted; its interruption pong follows."


@dataclass(frozen=True)
class SubagentList:
    """A session's conversations, one view each."""

    subagents: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {"subagents": self.subagents}

    def text(self, surface: Surface) -> str:
        if not self.subagents:
            return "No subagents in this session."
        lines = [f"{len(self.subagents)} subagent(s) in this session."]
        lines += [
            f"{r['id']}{' (' + r['name'] + ')' if r['name'] else ''}: {r['state']}, "
            f"{r['turns']} turn(s), last {r['lastStatus'] or '-'}; session {r['session']}"
            for r in self.subagents
        ]
        return "\n".join(lines)
