"""Subagent conversations of the sessions this process serves, and their turns.

A conversation is a clean, persistent child agent conversation: ``start`` makes one and runs
its first turn, ``continue_`` runs another turn on its saved session, ``steer`` reaches the
active turn, ``interrupt`` stops it. A child process exists only during a turn, so "at most
twelve children" is at most twelve active turns per owning session.

Waited-for turns (``wait=True``) return their bounded result directly. Otherwise a call returns
once the child accepted the prompt, and the turn's end — completed, failed or interrupted — is
exactly one notice (a "pong") through the shared background-task path. The registry is in
memory and per owning session; when the session ends (:meth:`shutdown_owner`) its active turns
are interrupted and their children stopped. Saved sessions stay on disk.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.subagents.backend import AgentBackend, AgentChild, TurnOutcome, TurnStatus
from oraculum.subagents.results import SubagentList, SubagentSignal, SubagentTurn
from oraculum.subagents.spec import MAX_CHILDREN, LaunchSpec, Routing, check_id, check_prompt
from oraculum.tasks import BackgroundTasks, Owner, TaskResult

__all__ = [
    "MAX_RESULT_CHARS",
    "TURN_TIMEOUT_S",
    "Conversation",
    "SubagentRegistry",
    "bounded_text",
    "turn_result",
]

MAX_RESULT_CHARS = 20_000
PREVIEW_CHARS = 240
TURN_TIMEOUT_S = 3600.0  # a turn that has not settled in an hour is stopped and failed
CLOSE_JOIN_S = 20.0


def bounded_text(text: str, limit: int = MAX_RESULT_CHARS) -> str:
    """``text`` cut to ``limit`` characters, saying so (pure)."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[cut at {limit} of {len(text)} characters]"


@dataclass
class Conversation:
    """One subagent conversation and its current turn."""

    id: str
    owner: Owner
    spec: LaunchSpec
    backend: str
    session_ref: str | None = None
    state: str = "starting"  # starting | running | idle | failed
    turns: int = 0
    routing: Routing = field(default_factory=Routing)
    last_status: str | None = None
    preview: str = ""
    child: AgentChild | None = None
    cancel: threading.Event = field(default_factory=threading.Event)

    @property
    def active(self) -> bool:
        return self.state in ("starting", "running")

    def label(self) -> str:
        return f"subagent {self.id}" + (f" ({self.spec.name})" if self.spec.name else "")

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.spec.name,
            "state": self.state,
            "cwd": str(self.spec.cwd),
            "tools": list(self.spec.tools) if self.spec.tools is not None else None,
            "backend": self.backend,
            "routing": self.routing.to_json(),
            "turns": self.turns,
            "lastStatus": self.last_status,
            "preview": self.preview,
            "session": self.session_ref,
        }


_ERROR_OF = {
    TurnStatus.FAILED: ErrorCode.SUBAGENT_FAILED,
    TurnStatus.INTERRUPTED: ErrorCode.SUBAGENT_INTERRUPTED,
}


def turn_result(conversation: Conversation, outcome: TurnOutcome) -> TaskResult:
    """A turn's end as the one result (pure): the pong's title, text and data."""
    title = f"{conversation.label()} {outcome.status.value}"
    body = bounded_text(outcome.text) if outcome.text else "(no final text)"
    if outcome.error:
        body = f"{outcome.error}\n\n{body}" if outcome.text else outcome.error
    text = f"{title}.\n\n{body}\n\nsession: {conversation.session_ref}"
    data = {
        "subagentId": conversation.id,
        "name": conversation.spec.name,
        "status": outcome.status.value,
        "session": conversation.session_ref,
        "turn": conversation.turns,
    }
    ok = outcome.status is TurnStatus.COMPLETED
    return TaskResult(ok, title, text, data, None if ok else _ERROR_OF[outcome.status])


def _not_found(subagent_id: str) -> OracleError:
    return OracleError(
        ErrorCode.SUBAGENT_NOT_FOUND,
        f"This session has no subagent {subagent_id}.",
        rejected_value=subagent_id,
        suggested_next_step="See subagent_list for this session's subagents.",
    )


class SubagentRegistry:
    """Conversations per owning session, turns through one backend."""

    def __init__(self, backend: AgentBackend, *, limit: int = MAX_CHILDREN) -> None:
        self.backend = backend
        self.limit = limit
        # Slack over the limit: a finished turn's task posts its pong after it left the count.
        self.tasks = BackgroundTasks("subagent", limit * 2)
        self._lock = threading.Lock()
        self._conversations: dict[Owner, dict[str, Conversation]] = {}
        self._numbers: dict[Owner, itertools.count[int]] = {}

    # --- the calls -----------------------------------------------------------------------

    def start(
        self, owner: Owner, prompt: str, spec: LaunchSpec, routing: Routing, *, wait: bool
    ) -> SubagentTurn:
        check_prompt(prompt)
        self.backend.resolve()  # a missing CLI is refused before anything is counted
        with self._lock:
            self._admit(owner)
            conversation = self._new(owner, spec)
        return self._turn(conversation, prompt, routing, wait=wait)

    def adopt(self, owner: Owner, session_ref: str, spec: LaunchSpec) -> str:
        """Register a saved conversation (a session file of an earlier run) as a settled one
        of ``owner``, so it can be continued; its new id."""
        path = Path(session_ref)
        if not path.is_absolute() or not path.is_file() or path.suffix != ".jsonl":
            raise OracleError(
                ErrorCode.INVALID_ARGUMENT,
                "A saved subagent session is an existing absolute .jsonl file.",
                rejected_value=session_ref[:200],
            )
        with self._lock:
            conversation = self._new(owner, spec)
            conversation.session_ref, conversation.state = str(path), "idle"
        return conversation.id

    def continue_(
        self, owner: Owner, subagent_id: str, prompt: str, routing: Routing, *, wait: bool
    ) -> SubagentTurn:
        check_prompt(prompt)
        with self._lock:
            conversation = self._get(owner, subagent_id)
            if conversation.active:
                raise OracleError(
                    ErrorCode.SUBAGENT_BUSY,
                    f"{conversation.label()} has an active turn.",
                    suggested_next_step="Steer or interrupt it, or wait for its result.",
                )
            if conversation.session_ref is None:
                raise OracleError(
                    ErrorCode.SUBAGENT_FAILED, f"{conversation.label()} never saved a session."
                )
            self._admit(owner)
            conversation.state, conversation.cancel = "starting", threading.Event()
        return self._turn(conversation, prompt, routing, wait=wait)

    def steer(self, owner: Owner, subagent_id: str, message: str) -> SubagentSignal:
        check_prompt(message, "steering message")
        with self._settled_is_idle(owner, subagent_id):
            self._active_child(owner, subagent_id).steer(message)
        return SubagentSignal(subagent_id, "steered")

    def interrupt(self, owner: Owner, subagent_id: str) -> SubagentSignal:
        with self._settled_is_idle(owner, subagent_id):
            # The turn's waiter sees it settle aborted: one interruption result.
            self._active_child(owner, subagent_id).abort()
        return SubagentSignal(subagent_id, "interrupted")

    def list(self, owner: Owner) -> SubagentList:
        with self._lock:
            return SubagentList([c.to_json() for c in self._conversations.get(owner, {}).values()])

    def shutdown_owner(self, owner: Owner) -> None:
        """The session ended: interrupt its active turns, stop their children."""
        with self._lock:
            conversations = list(self._conversations.get(owner, {}).values())
        for conversation in conversations:
            conversation.cancel.set()  # waited-for turns stop too
        for conversation in conversations:
            child = conversation.child
            if child is not None:
                child.hurry()  # every child signalled before any wait
        self.tasks.cancel_owner(owner, join_s=CLOSE_JOIN_S)

    # --- a turn --------------------------------------------------------------------------

    def _new(self, owner: Owner, spec: LaunchSpec) -> Conversation:
        """A new conversation with the owner's next id (the lock is held)."""
        number = next(self._numbers.setdefault(owner, itertools.count(1)))
        conversation = Conversation(str(number), owner, spec, self.backend.name)
        self._conversations.setdefault(owner, {})[conversation.id] = conversation
        return conversation

    def _admit(self, owner: Owner) -> None:
        active = sum(1 for c in self._conversations.get(owner, {}).values() if c.active)
        if active >= self.limit:
            raise OracleError(
                ErrorCode.BACKGROUND_LIMIT,
                f"This session already runs {active} subagent turns (at most {self.limit}).",
                details={"kind": "subagent", "limit": self.limit, "running": active},
                suggested_next_step="Wait for a pong, or interrupt a subagent, then retry.",
            )

    def _turn(
        self, conversation: Conversation, prompt: str, routing: Routing, *, wait: bool
    ) -> SubagentTurn:
        conversation.routing = routing
        try:
            child = self._launch(conversation, prompt, routing)
        except BaseException:
            with self._lock:
                conversation.state = "failed" if conversation.session_ref is None else "idle"
            raise
        if wait:
            outcome = self._finish(conversation, child, conversation.cancel)
            done = _result_json(turn_result(conversation, outcome))
            return SubagentTurn(conversation.to_json(), result=done)
        title = f"{conversation.label()}: {prompt.strip().splitlines()[0]}"[:300]
        try:
            task_id = self.tasks.start(
                conversation.owner,
                title,
                lambda cancel: turn_result(conversation, self._finish(conversation, child, cancel)),
            )
        except BaseException:
            self._finish(conversation, child, _SET)
            raise
        return SubagentTurn(conversation.to_json(), task_id=task_id)

    def _launch(self, conversation: Conversation, prompt: str, routing: Routing) -> AgentChild:
        child = self.backend.launch(conversation.spec, routing, conversation.session_ref)
        try:
            conversation.session_ref = child.session_ref
            child.prompt(prompt)
        except BaseException:
            child.close()
            raise
        with self._lock:
            conversation.child, conversation.state = child, "running"
            conversation.turns += 1
        return child

    def _finish(
        self, conversation: Conversation, child: AgentChild, cancel: threading.Event
    ) -> TurnOutcome:
        try:
            outcome = child.wait_turn(_Either(cancel, conversation.cancel), TURN_TIMEOUT_S)
        except OracleError as exc:
            outcome = TurnOutcome(TurnStatus.FAILED, "", exc.message)
        finally:
            child.close()
        with self._lock:
            conversation.child = None
            conversation.state = "idle"
            conversation.last_status = outcome.status.value
            conversation.preview = outcome.text[-PREVIEW_CHARS:]
        return outcome

    def _get(self, owner: Owner, subagent_id: str) -> Conversation:
        conversation = self._conversations.get(owner, {}).get(check_id(subagent_id))
        if conversation is None:
            raise _not_found(subagent_id)
        return conversation

    def _active_child(self, owner: Owner, subagent_id: str) -> AgentChild:
        with self._lock:
            conversation = self._get(owner, subagent_id)
            child = conversation.child
        if child is None or conversation.state != "running":
            raise _idle(conversation)
        return child

    @contextmanager
    def _settled_is_idle(self, owner: Owner, subagent_id: str) -> Iterator[None]:
        """A command that fails because the turn settled meanwhile is ``subagent_idle``."""
        try:
            yield
        except OracleError as exc:
            with self._lock:
                conversation = self._get(owner, subagent_id)
                settled = conversation.state != "running"
            if exc.code == ErrorCode.SUBAGENT_FAILED and settled:
                raise _idle(conversation) from None
            raise


def _idle(conversation: Conversation) -> OracleError:
    return OracleError(
        ErrorCode.SUBAGENT_IDLE,
        f"{conversation.label()} has no active turn.",
        suggested_next_step="Use subagent_continue to give it a new turn.",
    )


def _result_json(result: TaskResult) -> dict[str, Any]:
    return {
        "ok": result.ok,
        "title": result.title,
        "text": result.text,
        "errorCode": result.error_code.value if result.error_code else None,
    }


_SET = threading.Event()
_SET.set()


@dataclass(frozen=True)
class _Either:
    """Set when either of two events is: the task's cancel or the conversation's."""

    first: threading.Event
    second: threading.Event

    def is_set(self) -> bool:
        return self.first.is_set() or self.second.is_set()
