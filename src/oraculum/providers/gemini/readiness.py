"""Wait until the Gemini page is ready for a prompt, or fail fast with the same codes as ChatGPT
(the loop and the wording of every site `oraculum auth <site>` signs in are `providers.readiness`'s;
the classifier is Gemini's)."""

from __future__ import annotations

from oraculum.providers import readiness
from oraculum.providers.gemini.page_state import classify

__all__ = ["RULES", "wait_until_ready"]

RULES = readiness.site_rules("Gemini", "gemini")

wait_until_ready = readiness.page_waiter(classify, RULES)
