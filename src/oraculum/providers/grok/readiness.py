"""Wait until the Grok page is ready for a prompt, or fail fast with the same codes as ChatGPT
(the loop and the wording of every site `oraculum auth <site>` signs in are `providers.readiness`'s;
the classifier is Grok's)."""

from __future__ import annotations

from oraculum.providers import readiness
from oraculum.providers.grok.page_state import classify

__all__ = ["RULES", "wait_until_ready"]

RULES = readiness.site_rules("Grok", "grok")

wait_until_ready = readiness.page_waiter(classify, RULES)
