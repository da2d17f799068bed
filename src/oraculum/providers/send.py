"""Whether a prompt left the composer, judged the same way for every provider (pure).

A provider's composer code fills, clicks its own Send and polls its own page; these rules
decide from its readings: the composer holds exactly the prompt, and after the click the page
shows evidence that the prompt went out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from oraculum.core.providers import conversation_id_from_url
from oraculum.providers.turns import TurnsReading

__all__ = ["SendBaseline", "send_accepted", "squash"]


def squash(text: str) -> str:
    """``text`` as a composer check compares it: whitespace runs and zero-width marks aside
    (editors rewrap and pad what they hold)."""
    return re.sub(r"\s+", " ", text.replace("\u200b", "").replace("\ufeff", "")).strip()


@dataclass(frozen=True)
class SendBaseline:
    url: str
    assistant_count: int
    stop_present: bool

    @classmethod
    def of(cls, reading: TurnsReading) -> SendBaseline:
        return cls(reading.url, len(reading.assistant_texts), reading.stop_present)


def send_accepted(before: SendBaseline, now: TurnsReading) -> bool:
    """Evidence that the prompt left the composer: a new conversation URL, a new assistant
    turn, or a stop control that was not there before."""
    before_id = conversation_id_from_url(before.url)
    now_id = conversation_id_from_url(now.url)
    if now_id and now_id != before_id:
        return True
    if len(now.assistant_texts) > before.assistant_count:
        return True
    return now.stop_present and not before.stop_present
