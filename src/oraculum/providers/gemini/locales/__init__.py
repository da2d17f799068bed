"""Gemini's UI in each language it is driven in: one module per locale, each a `LABELS` table
(concept -> spellings), loaded by `vocabulary.LOCALES` (the mechanism of `providers/locales.py`,
as for ChatGPT and Grok). Sources: gemini-and-locale-facts.md §1.3-1.6 and §2.3; spellings
marked "unseen" are guesses no source records yet (matched, never relied on alone: the driver
finds Send, Stop, the mode picker and the reply by structure first)."""

__all__ = ["CODES"]

CODES = ("en", "ko", "vi", "pt", "zh-CN")
