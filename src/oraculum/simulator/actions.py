"""What happens to conversations: send, stop, retry, seed. Pure state changes, no HTTP."""

from __future__ import annotations

import copy
import time
from collections.abc import Iterable, Mapping
from html import escape
from typing import Any

from oraculum.simulator import answers
from oraculum.simulator.render import wrap_markdown
from oraculum.simulator.scenarios import Scenario
from oraculum.simulator.state import Conversation, SimState, Turn, new_id, tokenize
from oraculum.simulator.uploads import make_upload

RATE_LIMIT_TEXT = (
    "Too many requests. You've reached the rate limit for this model. Please try again later."
)


class Busy(Exception):
    """A follow-up was sent while the previous answer is still streaming."""


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
    think_s = scenario.think_ms / 1000
    turn = Turn(
        role="assistant",
        html=answer.html,
        text=answer.text,
        status="streaming",
        started_at=time.time() if now is None else now,
        think_s=think_s,
        token_s=scenario.token_ms / 1000,
        tokens=tokenize(answer.text),
        files=answer.files,
        reasoning_label=answers.reasoning_label(selection, think_s, scenario.reasoning_label),
        model=copy.copy(selection),
    )
    turn.fail_at = _fail_at(turn, scenario)
    return turn


def send_message(
    state: SimState,
    *,
    conversation_id: str | None,
    prompt: str,
    attachments: Iterable[str],
    scenario: Scenario,
    tool: str | None = None,
) -> tuple[Conversation, Turn, Turn]:
    """Accept a prompt: append the user turn and a streaming assistant turn."""
    if conversation_id:
        conv = state.conversation(conversation_id)
        if any(t.status == "streaming" for t in conv.assistant_turns()):
            raise Busy(conversation_id)
    else:
        conv = Conversation(id=new_id(), scenario=scenario, title=_title(prompt))
        state.conversations[conv.id] = conv
    user = Turn(
        role="user",
        text=prompt,
        attachments=[a for a in attachments if a in state.uploads],
        model=copy.copy(state.selection),
        tool=tool,
    )
    assistant = start_assistant(state, conv, user)
    conv.turns.extend([user, assistant])
    state.record("message", conversation_id=conv.id, message_id=user.message_id)
    return conv, user, assistant


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
        turn.html = wrap_markdown(f"<p>{escape(partial)}</p>")
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


def _seed_turn(state: SimState, spec: Mapping[str, Any] | str, role: str, prompt: str) -> Turn:
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
    if "html" in data:
        html = str(data["html"])
        answer = answers.Answer(html=html, text=answers.html_text(html))
    elif "answer" in data:
        answer = answers.build(
            str(data["answer"]), state=state, prompt=prompt, uploads=[], selection=state.selection
        )
    else:
        answer = answers.from_markdown(str(data.get("text", "")))
    return Turn(
        role="assistant",
        html=answer.html,
        text=answer.text,
        files=answer.files,
        tokens=tokenize(answer.text),
        status="complete",
        reasoning_label=str(data.get("reasoning_label", "")),
        message_id=str(data.get("message_id") or new_id()),
        seeded=True,
    )


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
        turn = _seed_turn(state, spec, "user" if index % 2 == 0 else "assistant", prompt)
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
