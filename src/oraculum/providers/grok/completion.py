"""After send: Grok's words for the answer wait (`providers.completion`): its rate-limit and
failure text (read in the reply only) and its Retry control; its messages, action buttons,
thinking shimmer and reasoning labels come through `GrokPage.turns()`. `providers.chat_flow`
waits with them."""

from __future__ import annotations

from oraculum.providers.completion import AnswerWords
from oraculum.providers.grok import vocabulary as vocab
from oraculum.providers.grok.page_state import generation_failure, rate_limited

__all__ = ["WORDS"]

WORDS = AnswerWords(
    label="Grok",
    rate_limited=rate_limited,
    generation_failure=generation_failure,
    retry_label=vocab.RETRY_LABEL,
)
