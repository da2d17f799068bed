"""Grok's UI in each language it is driven in: one module per locale, each a `LABELS` table
(concept -> spellings), loaded by `vocabulary.LOCALES` (the same mechanism as ChatGPT's,
`providers/locales.py`). No public source records Grok's labels in another language yet, so
English alone is here; a language is one more module and its code in `CODES`."""

__all__ = ["CODES"]

CODES = ("en",)
