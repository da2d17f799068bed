"""A conversation read at one instant, and what it says about this job's reply (pure).

Every provider's page script reads location, turns and the stop control in one evaluation and
returns this shape, so the decisions below (where the job's reply is, whether it streams, its
normalised text) serve every provider.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from oraculum.providers.terminal import ReplyReading, answer_text

if TYPE_CHECKING:
    from playwright.async_api import Page

__all__ = ["TurnsReading", "TurnsView", "answer_index", "reply_at", "signature", "text_at"]


@dataclass(frozen=True)
class TurnsReading:
    """The conversation at one instant (one evaluation)."""

    url: str
    assistant_texts: list[str]
    user_texts: list[str]
    stop_present: bool
    send_enabled: bool
    hidden: bool
    # Read only when an archive name was asked about: how many user turns show it, and the
    # index of the first assistant turn after the one that does (when exactly one does).
    archive_matches: int | None = None
    archive_reply_index: int | None = None
    # Per assistant turn (parallel to assistant_texts): its own action bar is shown; a
    # reasoning or streaming indicator is shown in it.
    action_bars: tuple[bool, ...] = ()
    indicators: tuple[bool, ...] = ()

    @classmethod
    def from_js(cls, data: dict[str, Any]) -> TurnsReading:
        anchor = data.get("archiveAnchor") or {}
        return cls(
            url=data["url"],
            assistant_texts=list(data["assistantTexts"]),
            user_texts=list(data["userTexts"]),
            stop_present=bool(data["stopPresent"]),
            send_enabled=bool(data["sendEnabled"]),
            hidden=bool(data["hidden"]),
            archive_matches=anchor.get("matches"),
            archive_reply_index=anchor.get("followingIndex"),
            action_bars=tuple(bool(x) for x in data.get("actionBars") or ()),
            indicators=tuple(bool(x) for x in data.get("indicators") or ()),
        )


class TurnsView(Protocol):
    """A provider's tab wrapper, as the shared waits use it: its page, and its reading."""

    @property
    def page(self) -> Page: ...

    async def turns(self, archive_name: str | None = None) -> TurnsReading:
        """The conversation now; with ``archive_name``, also where the job's exchange is."""
        ...


def answer_index(reading: TurnsReading, archive_name: str | None, fallback: int) -> int | None:
    """Where this job's answer is in ``reading``: the first assistant turn after the one user
    turn that shows the job's archive. A turn counted before the send is never trusted while
    that evidence can be had: a thread may show earlier exchanges, render them late, or gain
    an assistant message before ours. ``archive_name`` None (the URL was adopted without the
    archive in view) falls back to the pre-send position, which collection then refuses to
    bind, so the answer is never saved from a guess."""
    if archive_name is None:
        return fallback
    if reading.archive_matches == 1:
        return reading.archive_reply_index
    return None


def text_at(reading: TurnsReading, index: int | None) -> str:
    """The bound reply's text ("" while it is not there)."""
    if index is None or index >= len(reading.assistant_texts):
        return ""
    return reading.assistant_texts[index]


def signature(
    reading: TurnsReading, index: int | None, labels: Sequence[re.Pattern[str]] = ()
) -> str | None:
    """The bound turn's answer text, normalised; None while it streams or has no answer (no
    text, or only reasoning ``labels``)."""
    if index is None or reading.stop_present or index >= len(reading.assistant_texts):
        return None
    text = answer_text(reading.assistant_texts[index], labels)
    return "text:" + re.sub(r"\s+", " ", text).strip() if text else None


def reply_at(reading: TurnsReading, index: int | None) -> ReplyReading | None:
    """What ``reading`` shows of the bound reply (None: it is not there)."""
    if index is None or index >= len(reading.assistant_texts):
        return None

    def flag(values: tuple[bool, ...]) -> bool:
        return index < len(values) and values[index]

    return ReplyReading(
        text=reading.assistant_texts[index],
        stop_present=reading.stop_present,
        action_bar=flag(reading.action_bars),
        indicator=flag(reading.indicators),
    )
