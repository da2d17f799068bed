"""The Gemini page flow for one job: the shared chat flow (`providers.chat_flow`) over Gemini's
steps — verify the page (signed in) → choose the job's mode and verify it → attach the .tar.gz
through "Upload & tools" → type → send → adopt `/app/<id>` → wait → collect through Gemini's own
capture root."""

from __future__ import annotations

from typing import Any

from oraculum.core.providers import GEMINI_MODES
from oraculum.providers.base import WorkerContext
from oraculum.providers.chat_flow import ChatFlow
from oraculum.providers.gemini import composer
from oraculum.providers.gemini.completion import WORDS
from oraculum.providers.gemini.model import select_mode
from oraculum.providers.gemini.page import GeminiPage
from oraculum.providers.gemini.page_state import allowed_origins
from oraculum.providers.gemini.readiness import wait_until_ready


class GeminiProvider(ChatFlow):
    name = "gemini"
    label = "Gemini"
    page_view = GeminiPage
    composer = composer.WORDS
    allowed_origins = staticmethod(allowed_origins)
    wait_until_ready = staticmethod(wait_until_ready)
    answer_words = WORDS

    async def configure(self, ctx: WorkerContext, view: Any) -> dict[str, Any]:
        mode = ctx.job.selection.mode or GEMINI_MODES.ids[0]
        return await select_mode(view, mode, ctx.log)
