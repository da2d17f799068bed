"""When a reply is finished: positive terminal evidence for the bound turn (issue 37 §4).

Reasoning models go silent for minutes, the stop control can vanish between reasoning and
answer, and a turn can show nothing but "Thought for 25s" meanwhile. So the end of an answer
is never "the stop control went away": it is the turn's own action bar under a real answer, or
a real answer that held still, with no stop control and no indicator, for a quiet window longer
than those pauses. Pure decisions over one poll's reading; the vocabulary comes in as data.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

__all__ = ["Finish", "FinishedBy", "ReplyReading", "answer_text", "is_label_only"]


class FinishedBy(StrEnum):
    ACTION_BAR = "action_bar"  # the turn's own copy/feedback controls under a stable answer
    QUIET = "quiet"  # no stop, no indicator, the same answer for the whole quiet window


@dataclass(frozen=True)
class ReplyReading:
    """The bound reply at one poll."""

    text: str
    stop_present: bool
    action_bar: bool
    indicator: bool


def answer_text(text: str, label_patterns: Sequence[re.Pattern[str]]) -> str:
    """``text`` without the lines that only label reasoning ("Thought for 25s")."""
    kept = [
        line for line in text.splitlines() if not any(p.match(line.strip()) for p in label_patterns)
    ]
    return "\n".join(kept).strip()


def is_label_only(text: str, label_patterns: Sequence[re.Pattern[str]]) -> bool:
    """A reply that shows text, all of it reasoning labels: not an answer yet."""
    return bool(text.strip()) and not answer_text(text, label_patterns)


@dataclass
class Finish:
    """Watches the bound reply poll by poll and says when, and on what evidence, it ended.

    The action bar needs the same answer on two polls (one frame can show a bar over text that
    is still being laid out); without it the answer must hold still, with no indicator, for
    ``quiet_s``. A stop control, or a reply with no answer text (nothing, or only a reasoning
    label), resets both; an indicator restarts the quiet window."""

    quiet_s: float
    label_patterns: Sequence[re.Pattern[str]]
    signature: str | None = None
    since: float = 0.0
    polls: int = 0

    def observe(self, reply: ReplyReading | None, now: float) -> FinishedBy | None:
        text = answer_text(reply.text, self.label_patterns) if reply is not None else ""
        if reply is None or reply.stop_present or not text:
            self.signature, self.polls = None, 0
            return None
        signature = " ".join(text.split())
        if signature != self.signature:
            self.signature, self.since, self.polls = signature, now, 0
        self.polls += 1
        if reply.action_bar and self.polls >= 2:
            return FinishedBy.ACTION_BAR
        if reply.indicator:
            self.since = now
        elif now - self.since >= self.quiet_s:
            return FinishedBy.QUIET
        return None
