"""codex_search: difficult web research and image generation by the ``codex_search`` helper.

See :mod:`oraculum.codex.search` and docs/subagents.md.
"""

from oraculum.codex.search import SearchRequest, plan_search, run_search, search_argv

__all__ = ["SearchRequest", "plan_search", "run_search", "search", "search_argv"]
