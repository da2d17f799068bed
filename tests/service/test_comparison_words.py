"""How status and read tell a reader that the page offered candidate answers to choose from."""

from __future__ import annotations

import json
from pathlib import Path

from oraculum.jobs.comparison import comparison_words
from oraculum.service.read import _comparison


def test_only_a_comparison_gap_is_worded() -> None:
    assert comparison_words(["unresolved_source_links"]) is None
    assert comparison_words(None) is None
    words = comparison_words(["response_comparison"], ["a.md", "b.md"])
    assert words is not None and "none was chosen" in words and "a.md, b.md" in words


def test_read_names_where_each_candidate_is_saved(tmp_path: Path) -> None:
    record = json.loads(
        '{"question": "Which response do you prefer?", "responses": ['
        '{"index": 1, "path": "response.md", "label": "Response 1"},'
        '{"index": 2, "path": "response-2.md", "label": "Response 2"},'
        '{"index": 3, "path": null}]}'
    )
    shown = _comparison(record, tmp_path)
    assert shown is not None and shown["question"] == "Which response do you prefer?"
    assert [r["path"] for r in shown["responses"]] == [
        str(tmp_path / "response.md"),
        str(tmp_path / "response-2.md"),
    ]
    assert _comparison(None, tmp_path) is None
