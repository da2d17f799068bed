"""After send: Gemini's words for the answer wait (`providers.completion`): its rate-limit and
failure text (read in the reply only) and its Retry control; its messages, action buttons,
thinking shimmer and reasoning labels come through `GeminiPage.turns()`. `providers.chat_flow`
waits with them."""

from __future__ import annotations

from oraculum.providers.completion import AnswerWords
from oraculum.providers.gemini import vocabulary as vocab
from oraculum.providers.gemini.page_state import generation_failure, rate_limited

__all__ = ["WORDS"]

WORDS = AnswerWords(
    label="Gemini",
    rate_limited=rate_limited,
    generation_failure=generation_failure,
    retry_label=vocab.RETRY_LABEL,
)
