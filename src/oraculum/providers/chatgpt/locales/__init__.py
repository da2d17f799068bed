"""ChatGPT's UI in each language it is driven in: one module per locale, each a `LABELS` table
(concept -> spellings). `vocabulary.LOCALES` loads them; add a language by adding a module here
and its code to `CODES`. Sources: /work/shared/reference/gemini-and-locale-facts.md §2 (spellings
marked there [L] are hypotheses; so are the ones below marked "unseen")."""

__all__ = ["CODES"]

CODES = ("en", "de", "fr", "es", "ja", "zh-CN")
