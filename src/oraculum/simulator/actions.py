"""What happens to conversations: send, stop, retry, seed. Pure state changes, no HTTP."""

from __future__ import annotations

import copy
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from html import escape
from typing import Any

from oraculum.simulator import answers, deep_research
from oraculum.simulator.render import wrap_markdown
from oraculum.simulator.scenarios import Scenario
from oraculum.simulator.site import site_for
from oraculum.simulator.state import (
    Conversation,
    SimState,
    Turn,
    new_id,
    tokenize,
    tokens_for_chars,
)
from oraculum.simulator.uploads import make_upload, tar_zst

RATE_LIMIT_TEXT = (
    "Too many requests. You've reached the rate limit for this model. Please try again later."
)


# prefilled_thread: the earlier exchange a new chat shows, with an archive of its own.
PREFILL_PROMPT = "Earlier question about this project"
PREFILL_ARCHIVE = "context-old.tar.zst"
PREFILL_FILES = {"notes/earlier.md": b"# Notes from an earlier session\n"}
# extra_assistant: the assistant message each send adds before its user turn.
EXTRA_ASSISTANT_TEXT = "I'm looking at your files…"
# Every new-chat page load under prefilled_thread holds one until a send adopts it; a long
# `serve` session must not grow without bound.
MAX_PENDING_PREFILLS = 200


class Busy(Exception):
    """A follow-up was sent while the previous answer is still streaming."""


class UnknownPrefill(ValueError):
    """A send named an earlier exchange the server does not hold (never shown, or already used)."""


@dataclass
class Sent:
    """What one accepted send added to its conversation, in order: `before`, `user`, `assistant`."""

    conversation: Conversation
    user: Turn
    assistant: Turn
    before: list[Turn]


def _title(prompt: str) -> str:
    first = prompt.strip().splitlines()[0] if prompt.strip() else "New chat"
    return first[:48]


def _fail_at(turn: Turn, scenario: Scenario) -> int | None:
    """Where this attempt breaks under generation_error: a third of the way in."""
    if scenario.has("generation_error") and turn.attempt <= scenario.error_times:
        return max(1, len(turn.tokens) // 3)
    return None


def start_assistant(
    state: SimState, conv: Conversation, user: Turn, *, now: float | None = None
) -> Turn:
    """A new streaming assistant turn answering `user`, on the conversation's schedule."""
    scenario = conv.scenario
    uploads = [state.uploads[i] for i in user.attachments if i in state.uploads]
    selection = user.model or state.selection
    answer = answers.build(
        scenario.answer, state=state, prompt=user.text, uploads=uploads, selection=selection
    )
    if scenario.pause_ms:
        answer = answers.with_ending(answer, state.provider)
    if scenario.has("turn_chrome"):
        answer = answers.with_turn_chrome(answer)
    think_s = scenario.think_ms / 1000
    turn = Turn(
        role="assistant",
        html=answer.html,
        text=answer.text,
        status="streaming",
        started_at=time.time() if now is None else now,
        think_s=think_s,
        gap_s=scenario.silent_gap_ms / 1000,
        pause_s=scenario.pause_ms / 1000,
        token_s=scenario.token_ms / 1000,
        tokens=tokenize(answer.text),
        files=answer.files,
        reasoning_label=answers.reasoning_label(selection, think_s, scenario.reasoning_label),
        model=copy.copy(selection),
        failure_text=site_for(state.provider).generation_error_text,
    )
    turn.fail_at = _fail_at(turn, scenario)
    turn.pause_at = tokens_for_chars(turn.tokens, scenario.pause_at_chars)
    if scenario.has("comparison_answer") and not any(t.comparison for t in conv.turns):
        second = answers.alternative(user.text, uploads, state.provider)
        turn.comparison = {"message_id": new_id(), "html": second.html, "text": second.text}
        turn.comparison_s = scenario.comparison_lag_ms / 1000
    return turn


def _research_text(kind: str) -> str:
    return deep_research.CLARIFY_TEXT if kind == "clarify" else deep_research.STARTED_TEXT


def _make_research(turn: Turn, kind: str, scenario: Scenario) -> Turn:
    """Deep Research: the clarifying question is an ordinary reply; a research turn adds its
    research phase and the finished report (knobs applied) the page hands to its widget."""
    turn.research_kind = kind
    turn.reasoning_label = ""
    if kind == "research":
        turn.research_s = scenario.research_ms / 1000
        turn.research = deep_research.report_payload(scenario, turn.message_id)
    return turn


def start_research(state: SimState, conv: Conversation, user: Turn, kind: str) -> Turn:
    """A streaming Deep Research turn ("clarify" or "research") answering `user`."""
    answer = answers.from_markdown(_research_text(kind), state.provider)
    turn = Turn(
        role="assistant",
        html=answer.html,
        text=answer.text,
        status="streaming",
        started_at=time.time(),
        think_s=conv.scenario.think_ms / 1000,
        token_s=conv.scenario.token_ms / 1000,
        tokens=tokenize(answer.text),
        model=copy.copy(user.model or state.selection),
    )
    return _make_research(turn, kind, conv.scenario)


def _finished_assistant(
    answer: answers.Answer,
    *,
    reasoning_label: str = "",
    message_id: str | None = None,
    seeded: bool = False,
) -> Turn:
    """A committed assistant turn holding `answer`, as a reload renders it."""
    return Turn(
        role="assistant",
        html=answer.html,
        text=answer.text,
        files=answer.files,
        tokens=tokenize(answer.text),
        status="complete",
        reasoning_label=reasoning_label,
        message_id=message_id or new_id(),
        seeded=seeded,
    )


def prefill(state: SimState, scenario: Scenario) -> tuple[str, list[Turn]]:
    """The earlier exchange a new chat shows under prefilled_thread (as a restored thread would):
    a user turn with its own archive and a finished reply in the conversation's answer template.
    Held under the returned id until a send adopts it as the new conversation's first turns."""
    upload = make_upload(PREFILL_ARCHIVE, tar_zst(PREFILL_FILES), "application/zstd")
    state.uploads[upload.id] = upload
    selection = copy.copy(state.selection)
    user = Turn(
        role="user", text=PREFILL_PROMPT, attachments=[upload.id], model=selection, seeded=True
    )
    answer = answers.build(
        scenario.answer, state=state, prompt=PREFILL_PROMPT, uploads=[upload], selection=selection
    )
    label = answers.reasoning_label(selection, scenario.think_ms / 1000, scenario.reasoning_label)
    reply = _finished_assistant(answer, reasoning_label=label, seeded=True)
    reply.model = selection
    prefill_id = new_id()
    state.prefills[prefill_id] = [user, reply]
    while len(state.prefills) > MAX_PENDING_PREFILLS:
        del state.prefills[next(iter(state.prefills))]  # the oldest page load's
    return prefill_id, [user, reply]


def _adopt_prefill(state: SimState, prefill_id: str | None) -> list[Turn]:
    if not prefill_id:
        return []
    turns = state.prefills.pop(prefill_id, None)
    if turns is None:
        raise UnknownPrefill(prefill_id)
    return turns


def _extra_assistant(state: SimState) -> Turn:
    return _finished_assistant(answers.from_markdown(EXTRA_ASSISTANT_TEXT, state.provider))


def send_message(
    state: SimState,
    *,
    conversation_id: str | None,
    prompt: str,
    attachments: Iterable[str],
    scenario: Scenario,
    tool: str | None = None,
    prefill_id: str | None = None,
) -> Sent:
    """Accept a prompt: append the user turn and a streaming assistant turn.

    A new conversation starts with the earlier exchange its page showed (`prefill_id`); under
    extra_assistant a finished assistant turn goes in ahead of the user turn."""
    if conversation_id:
        conv = state.conversation(conversation_id)
        if any(t.status == "streaming" for t in conv.assistant_turns()):
            raise Busy(conversation_id)
    else:
        earlier = _adopt_prefill(state, prefill_id)
        conv = Conversation(id=new_id(), scenario=scenario, title=_title(prompt), turns=earlier)
        state.conversations[conv.id] = conv
    kind = deep_research.turn_kind(
        [t.research_kind for t in conv.assistant_turns()], tool, conv.scenario
    )
    before = [_extra_assistant(state)] if conv.scenario.has("extra_assistant") else []
    user = Turn(
        role="user",
        text=prompt,
        attachments=[a for a in attachments if a in state.uploads],
        model=copy.copy(state.selection),
        tool=tool,
    )
    if kind is None:
        assistant = start_assistant(state, conv, user)
    else:
        assistant = start_research(state, conv, user, kind)
    conv.turns.extend([*before, user, assistant])
    state.record("message", conversation_id=conv.id, message_id=user.message_id)
    return Sent(conv, user, assistant, before)


def stop(state: SimState, conv: Conversation, turn: Turn) -> None:
    """The user pressed stop: the answer commits as far as it had streamed."""
    now = time.time()
    turn.refresh(now)
    if turn.status != "streaming":
        return
    delivered = turn.tokens_due(now)
    turn.stopped_at_token = delivered
    turn.status = "stopped"
    partial = "".join(turn.tokens[:delivered]).strip()
    if partial:
        turn.html = wrap_markdown(f"<p>{escape(partial)}</p>", state.provider)
        turn.text = partial
    else:
        turn.html, turn.text = "", ""
        turn.reasoning_label = "Stopped thinking"
    turn.tokens = tokenize(turn.text)
    turn.stopped_at_token = len(turn.tokens)
    state.record("stop", conversation_id=conv.id, message_id=turn.message_id)


def retry(state: SimState, conv: Conversation, turn: Turn) -> Turn:
    """'Retry' after a generation error: a fresh attempt (new message id) in the same slot."""
    turn.refresh(time.time())
    if turn.status != "error":
        raise ValueError("only a failed answer can be retried")
    turn.attempt += 1
    turn.message_id = new_id()
    turn.status = "streaming"
    turn.error_text = ""
    turn.started_at = time.time()
    turn.fail_at = _fail_at(turn, conv.scenario)
    state.record("retry", conversation_id=conv.id, message_id=turn.message_id)
    return turn


def _seed_turn(
    state: SimState, spec: Mapping[str, Any] | str, role: str, prompt: str, scenario: Scenario
) -> Turn:
    data: dict[str, Any] = {"text": spec} if isinstance(spec, str) else dict(spec)
    role = str(data.get("role", role))
    if role == "user":
        ids = []
        for item in data.get("attachments", []):
            if isinstance(item, str):
                name, raw = item, b""
            else:
                name, raw = item[0], item[1]
            upload = make_upload(name, raw, "application/octet-stream")
            state.uploads[upload.id] = upload
            ids.append(upload.id)
        return Turn(
            role="user",
            text=str(data.get("text", "")),
            attachments=ids,
            message_id=str(data.get("message_id") or new_id()),
            seeded=True,
        )
    if data.get("deep_research"):
        kind = "clarify" if data["deep_research"] == "clarify" else "research"
        answer = answers.from_markdown(_research_text(kind), state.provider)
        finished = _finished_assistant(
            answer, message_id=str(data.get("message_id") or "") or None, seeded=True
        )
        return _make_research(finished, kind, scenario)
    if "html" in data:
        html = str(data["html"])
        answer = answers.Answer(html=html, text=answers.html_text(html))
    elif "answer" in data:
        answer = answers.build(
            str(data["answer"]), state=state, prompt=prompt, uploads=[], selection=state.selection
        )
    else:
        answer = answers.from_markdown(str(data.get("text", "")), state.provider)
    turn = _finished_assistant(
        answer,
        reasoning_label=str(data.get("reasoning_label", "")),
        message_id=str(data.get("message_id") or "") or None,
        seeded=True,
    )
    if data.get("comparison"):  # a second candidate, as comparison_answer shows one (Markdown)
        second = answers.from_markdown(str(data["comparison"]), state.provider)
        turn.comparison = {"message_id": new_id(), "html": second.html, "text": second.text}
    return turn


def seed(
    state: SimState,
    turns: Iterable[Mapping[str, Any] | str],
    scenario: Scenario,
    *,
    title: str | None = None,
    decoy: bool = False,
) -> Conversation:
    """A finished conversation, as if it had happened. Turns alternate user/assistant unless a
    turn says its `role`; a string is that turn's text (an assistant's is Markdown)."""
    conv = Conversation(id=new_id(), scenario=scenario, decoy=decoy)
    prompt = ""
    for index, spec in enumerate(turns):
        role = "user" if index % 2 == 0 else "assistant"
        turn = _seed_turn(state, spec, role, prompt, scenario)
        if turn.role == "user":
            prompt = turn.text
        conv.turns.append(turn)
    conv.title = title or _title(prompt or "Seeded conversation")
    state.conversations[conv.id] = conv
    return conv


def decoy(state: SimState, scenario: Scenario) -> Conversation:
    """The other conversation the navigate_away scenario moves a tab to."""
    return seed(
        state,
        [
            {"text": "Unrelated earlier question", "attachments": ["context-other.tar.zst"]},
            "An unrelated earlier answer from **another conversation**.",
        ],
        scenario,
        title="Another conversation",
        decoy=True,
    )
