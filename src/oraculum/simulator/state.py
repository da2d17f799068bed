"""Everything the simulator server remembers, as plain data tests can inspect.

Time is wall-clock seconds. An assistant turn's progress is *derived* from its start time and
its scenario's pace, so the server commits the full answer on schedule whether or not any page
is watching the stream (that is what makes the hidden-tab reload show more than the stream did).
"""

from __future__ import annotations

import math
import re
import secrets
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from oraculum.simulator import deep_research
from oraculum.simulator.scenarios import Scenario

# A token is a word with the whitespace before it, like the pieces a model streams.
_TOKEN_RE = re.compile(r"\s*\S+|\s+$")


def tokenize(text: str) -> list[str]:
    tokens = _TOKEN_RE.findall(text)
    return tokens or ([text] if text else [])


def tokens_for_chars(tokens: list[str], chars: int) -> int:
    """How many tokens stream at least ``chars`` characters (0 for 0)."""
    total = 0
    for count, token in enumerate(tokens):
        if total >= chars:
            return count
        total += len(token)
    return len(tokens)


def new_id() -> str:
    return str(uuid.uuid4())


# ChatGPT's; a site may have its own (`Site.generation_error_text`).
GENERATION_ERROR_TEXT = (
    "Something went wrong while generating the response. If this issue persists please "
    "contact us through our help center at help.openai.com."
)


@dataclass
class Member:
    name: str
    size: int
    kind: str  # "file", "dir", "symlink", "other"


@dataclass
class Upload:
    id: str
    name: str
    size: int
    sha256: str
    content_type: str
    data: bytes = field(repr=False)
    members: list[Member] | None = None
    archive_error: str | None = None
    created_at: float = field(default_factory=time.time)


@dataclass
class FileBlob:
    """A file an answer offers for download (served at /files/<id>/<name>)."""

    id: str
    name: str
    content_type: str
    data: bytes = field(repr=False)


@dataclass
class Selection:
    """The account's model choice, as every picker reads and writes it."""

    family: str = "thinking"
    effort: str = "standard"
    auto_switch: bool = True
    version: str = "latest"

    def to_dict(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "effort": self.effort,
            "auto_switch": self.auto_switch,
            "version": self.version,
        }


@dataclass
class Turn:
    role: str  # "user" | "assistant"
    message_id: str = field(default_factory=new_id)
    text: str = ""  # user prompt, or the assistant answer's plain text
    html: str = ""  # assistant answer as rendered HTML
    attachments: list[str] = field(default_factory=list)  # upload ids (user turns)
    model: Selection | None = None
    tool: str | None = None  # "deep_research" when the composer tool was on
    status: str = "complete"  # assistant: streaming | complete | error | stopped
    started_at: float = 0.0
    think_s: float = 0.0
    # silent_gap_ms: after thinking, a pause with no stop control and no indicator (issue 37).
    gap_s: float = 0.0
    # pause_ms: mid-answer, once `pause_at` tokens are out, the stream holds for `pause_s` with
    # no stop control and no indicator, then goes on (issue 37 §4).
    pause_at: int = 0
    pause_s: float = 0.0
    token_s: float = 0.0
    tokens: list[str] = field(default_factory=list)
    fail_at: int | None = None  # token index where this attempt errors out
    failure_text: str = GENERATION_ERROR_TEXT  # what the page shows when it does
    error_text: str = ""
    reasoning_label: str = ""
    attempt: int = 1
    files: list[str] = field(default_factory=list)  # FileBlob ids
    stopped_at_token: int | None = None
    seeded: bool = False  # put there by seed_conversation, not sent through a page
    # Deep Research: "clarify" (the question before research) or "research" (the widget turn),
    # the research phase that follows the streamed text, and the finished report for the page.
    research_kind: str | None = None
    research_s: float = 0.0
    research: dict[str, Any] | None = field(default=None, repr=False)
    # comparison_answer: the second candidate ({message_id, html, text}), which the page shows
    # beside this one and which finishes `comparison_s` after it.
    comparison: dict[str, str] | None = field(default=None, repr=False)
    comparison_s: float = 0.0

    # -- derived progress ----------------------------------------------------------------
    def stream_end_token(self) -> int:
        return len(self.tokens) if self.fail_at is None else self.fail_at

    def answer_starts_at(self) -> float:
        return self.started_at + self.think_s + self.gap_s

    def held_s(self) -> float:
        """How long the mid-answer pause holds the stream (0: none before the stream ends)."""
        return self.pause_s if 0 < self.pause_at < self.stream_end_token() else 0.0

    def pause_starts_at(self) -> float:
        return self.answer_starts_at() + self.pause_at * self.token_s

    def _holding(self, now: float) -> bool:
        start = self.pause_starts_at()
        return start <= now < start + self.held_s()

    def research_starts_at(self) -> float:
        return self.answer_starts_at() + self.stream_end_token() * self.token_s + self.held_s()

    def commit_at(self) -> float:
        return self.research_starts_at() + self.research_s + self.comparison_s

    def tokens_due(self, now: float) -> int:
        if self.stopped_at_token is not None:
            return self.stopped_at_token
        if self._holding(now):
            return self.pause_at
        elapsed = now - self.answer_starts_at()
        if elapsed < 0:
            return 0
        if now >= self.pause_starts_at():
            elapsed -= self.held_s()  # the tokens after the pause come that much later
        if self.token_s <= 0:
            return self.stream_end_token()
        return min(self.stream_end_token(), math.floor(elapsed / self.token_s) + 1)

    def thinking(self, now: float) -> bool:
        return self.status == "streaming" and now < self.started_at + self.think_s

    def in_gap(self, now: float) -> bool:
        return (
            self.status == "streaming" and not self.thinking(now) and now < self.answer_starts_at()
        )

    def in_pause(self, now: float) -> bool:
        return self.status == "streaming" and self.stopped_at_token is None and self._holding(now)

    def refresh(self, now: float) -> None:
        """Commit the turn once its schedule has run out."""
        if self.status != "streaming" or now < self.commit_at():
            return
        if self.fail_at is not None:
            self.status = "error"
            self.error_text = self.failure_text
        else:
            self.status = "complete"

    def public(self, state: SimState) -> dict[str, Any]:
        """What the page needs to render this turn."""
        data: dict[str, Any] = {
            "role": self.role,
            "message_id": self.message_id,
            "status": self.status,
        }
        if self.role == "user":
            data["text"] = self.text
            data["tool"] = self.tool
            data["attachments"] = [
                {"id": up.id, "name": up.name, "size": up.size}
                for up in (state.uploads.get(i) for i in self.attachments)
                if up is not None
            ]
        else:
            data["reasoning_label"] = self.reasoning_label
            data["error_text"] = self.error_text
            # A streaming turn's body arrives over the stream, not in the page.
            data["html"] = self.html if self.status in ("complete", "stopped") else ""
            if self.research_kind == "research":
                data["research"] = self.research_view(time.time())
            if self.comparison is not None:
                data["comparison"] = self.comparison_view()
        return data

    def comparison_view(self) -> dict[str, str] | None:
        """The second candidate as the page shows it: its id, and its body once finished."""
        if self.comparison is None:
            return None
        finished = self.status in ("complete", "stopped")
        return {
            "message_id": self.comparison["message_id"],
            "html": self.comparison["html"] if finished else "",
        }

    def research_view(self, now: float) -> dict[str, Any]:
        """The research widget's state at `now`, as the page hands it to the widget."""
        if self.status == "complete":
            return {"phase": "completed", "report": self.research}
        if self.status in ("stopped", "error"):
            return {"phase": "stopped"}
        elapsed = now - self.research_starts_at()
        return {"phase": "researching", "status": deep_research.progress(elapsed, self.research_s)}


@dataclass
class Conversation:
    id: str
    scenario: Scenario
    turns: list[Turn] = field(default_factory=list)
    title: str = "New chat"
    created_at: float = field(default_factory=time.time)
    decoy: bool = False  # created as the place the navigate_away scenario moves a tab to

    def user_turns(self) -> list[Turn]:
        return [t for t in self.turns if t.role == "user"]

    def assistant_turns(self) -> list[Turn]:
        return [t for t in self.turns if t.role == "assistant"]

    def find(self, message_id: str) -> Turn | None:
        return next((t for t in self.turns if t.message_id == message_id), None)

    def refresh(self, now: float | None = None) -> None:
        moment = time.time() if now is None else now
        for turn in self.turns:
            turn.refresh(moment)


@dataclass
class SimState:
    defaults: Scenario = field(default_factory=Scenario)
    provider: str = "chatgpt"  # the site this simulator imitates (`oraculum.simulator.site`)
    require_login: bool = True
    conversations: dict[str, Conversation] = field(default_factory=dict)
    uploads: dict[str, Upload] = field(default_factory=dict)
    files: dict[str, FileBlob] = field(default_factory=dict)
    sessions: dict[str, str] = field(default_factory=dict)  # token -> email
    selection: Selection = field(default_factory=Selection)
    events: list[dict[str, Any]] = field(default_factory=list)
    load_counts: dict[str, int] = field(default_factory=dict)
    # prefilled_thread: the earlier exchange each new-chat page showed, until a send adopts it.
    prefills: dict[str, list[Turn]] = field(default_factory=dict)
    # Deep Research: the report widget's own origin (a second listening socket) and the page's.
    widget_origin: str = ""
    host_origin: str = ""

    def record(self, kind: str, **details: Any) -> None:
        self.events.append({"type": kind, "at": time.time(), **details})

    def new_session(self, email: str = "tester@example.com") -> str:
        token = secrets.token_urlsafe(24)
        self.sessions[token] = email
        return token

    def user_messages(self, conversation_id: str | None = None) -> list[Turn]:
        """Every user turn the server accepted, oldest first (optionally one conversation's)."""
        convs = (
            [self.conversations[conversation_id]]
            if conversation_id
            else sorted(self.conversations.values(), key=lambda c: c.created_at)
        )
        return [t for c in convs for t in c.user_turns() if not t.seeded]

    def conversation(self, conversation_id: str) -> Conversation:
        conv = self.conversations[conversation_id]
        conv.refresh()
        return conv

    def events_of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind]
