"""The comparison gap: the provider's page showed candidate answers and asked which one is
preferred. Collection saves each and chooses none (docs/collection.md); every surface that
describes a job (status, read, the wake-up) words it here, the same way."""

from __future__ import annotations

from collections.abc import Iterable

COMPARISON_GAP = "response_comparison"


def comparison_words(gaps: Iterable[str] | None, files: list[str] | None = None) -> str | None:
    """What a reader is told when a job's collection gaps name a comparison; ``files``: where
    each candidate is saved (default: the first two names)."""
    if COMPARISON_GAP not in (gaps or []):
        return None
    saved = ", ".join(files) if files else "response.md, response-2.md"
    return (
        "The page showed candidate answers and asked which one you prefer; none was chosen "
        f"and each is saved: {saved}."
    )
