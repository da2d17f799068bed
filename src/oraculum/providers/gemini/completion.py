"""After send: Gemini's words for the answer wait (`providers.completion`): its rate-limit and
failure text (read in the reply only) and its Retry control; its messages, action buttons,
thinking shimmer and reasoning labels come through `GeminiPage.turns()`."""

from __future__ import annotations

from oraculum.providers import completion
from oraculum.providers.completion import Answer, AnswerWords, CompletionContext
from oraculum.providers.gemini import vocabulary as vocab
from oraculum.providers.gemini.page import GeminiPage
from oraculum.providers.gemini.page_state import generation_failure, rate_limited

__all__ = ["WORDS", "wait_for_answer"]

WORDS = AnswerWords(
    label="Gemini",
    rate_limited=rate_limited,
    generation_failure=generation_failure,
    retry_label=vocab.RETRY_LABEL,
)


async def wait_for_answer(gemini: GeminiPage, ctx: CompletionContext) -> Answer:
    """The finished text of the reply bound to this job's user message, and where it is."""
    return await completion.wait_for_answer(gemini, ctx, WORDS)
