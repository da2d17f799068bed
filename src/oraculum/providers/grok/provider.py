"""The Grok Heavy page flow for one job: the shared chat flow (`providers.chat_flow`) over
Grok's steps — verify the page → select Heavy and verify it → attach the .tar.gz → type → send →
adopt the conversation URL shown with this job's archive → wait → collect through Grok's own
capture root."""

from __future__ import annotations

from typing import Any

from oraculum.providers.base import WorkerContext
from oraculum.providers.chat_flow import ChatFlow
from oraculum.providers.grok import composer
from oraculum.providers.grok.completion import WORDS
from oraculum.providers.grok.model import select_heavy
from oraculum.providers.grok.page import GrokPage
from oraculum.providers.grok.page_state import allowed_origins
from oraculum.providers.grok.readiness import wait_until_ready


class GrokProvider(ChatFlow):
    """The Grok page flow; the shared lifecycle (`providers.browser_job`) runs it."""

    name = "grok"
    label = "Grok"
    page_view = GrokPage
    composer = composer.WORDS
    allowed_origins = staticmethod(allowed_origins)
    wait_until_ready = staticmethod(wait_until_ready)
    answer_words = WORDS

    async def configure(self, ctx: WorkerContext, view: Any) -> dict[str, Any]:
        return await select_heavy(view, ctx.log)
