"""Rewrite the error-code table in docs/agents.md from oraculum.core.errors.ErrorCode.

Run `.venv/bin/python scripts/error_codes.py` after adding or changing a code;
tests/core/test_error_codes.py fails while the table is stale.
"""

from __future__ import annotations

from pathlib import Path

from oraculum.core.errors import with_error_code_table

AGENTS_DOC = Path(__file__).resolve().parents[1] / "docs" / "agents.md"


def main() -> None:
    text = AGENTS_DOC.read_text(encoding="utf-8")
    updated = with_error_code_table(text)
    if updated != text:
        AGENTS_DOC.write_text(updated, encoding="utf-8")
    print(f"{AGENTS_DOC}: {'rewritten' if updated != text else 'up to date'}")


if __name__ == "__main__":
    main()
