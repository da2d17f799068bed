"""After send: ChatGPT's words for the answer wait (`providers.completion`): its rate-limit
and failure text, read outside the turn too, and its Retry control."""

from __future__ import annotations

from oraculum.providers import completion
from oraculum.providers.chatgpt import vocabulary as vocab
from oraculum.providers.chatgpt.page import ChatGPTPage
from oraculum.providers.chatgpt.page_state import generation_failure, rate_limited
from oraculum.providers.completion import Answer, AnswerWords, CompletionContext

__all__ = ["WORDS", "wait_for_answer"]

WORDS = AnswerWords(
    label="ChatGPT",
    rate_limited=rate_limited,
    generation_failure=generation_failure,
    retry_label=vocab.RETRY_LABEL,
    failure_outside_turn=True,
)


async def wait_for_answer(chat: ChatGPTPage, ctx: CompletionContext) -> Answer:
    """The finished text of the bound turn, and where it is."""
    return await completion.wait_for_answer(chat, ctx, WORDS)
