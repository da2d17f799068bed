"""Deep Research citation tokens → Markdown footnotes, and the fences they never touch."""

from __future__ import annotations

from oraculum.capture.citations import fenced_blocks, footnoted, markdown_segments

S, E, SEP = "\ue200", "\ue201", "\ue202"


def cite(*refs: str) -> str:
    return S + "cite" + "".join(SEP + r for r in refs) + E


REFS = [
    {
        "matched_text": cite("turn0search0"),
        "items": [{"title": "Alpha [docs]", "url": "https://alpha.example/a"}],
    },
    {"refs": ["turn0search1"], "items": [{"title": "Beta", "url": "https://beta.example/b"}]},
    {
        "refs": [{"turn_index": 1, "ref_type": "search", "ref_index": 4}],
        "items": [{"title": "Gamma", "url": "https://gamma.example/?sig=secret"}],
    },
]


def test_footnotes_are_numbered_by_first_citation_and_defined_at_the_end() -> None:
    text = (
        "# Report\n\nFirst claim."
        + cite("turn0search1")
        + "\nSecond."
        + cite("turn0search0")
        + " Again."
        + cite("turn0search1")
        + "\n"
    )
    cited = footnoted(text, REFS)
    assert cited.text.startswith("# Report\n\nFirst claim.[^1]\nSecond.[^2] Again.[^1]\n")
    assert cited.text.endswith(
        "\n\n[^1]: [Beta](https://beta.example/b)\n[^2]: [Alpha \\[docs\\]](https://alpha.example/a)\n"
    )
    assert "\ue200" not in cited.text and "\ue202" not in cited.text
    assert cited.counts() == {"tokens": 3, "sources": 2, "unresolved": 0}


def test_one_token_with_several_references_gets_one_mark_per_source() -> None:
    cited = footnoted("Both." + cite("turn0search0", "turn0search1") + "\n", REFS)
    # turn0search0 is known from the matched_text of its own one-reference token.
    assert "Both.[^1][^2]\n" in cited.text
    assert "[^1]: [Alpha" in cited.text and "[^2]: [Beta]" in cited.text
    cited = footnoted("Both." + cite("turn0search1", "turn1search4") + "\n", REFS)
    assert "Both.[^1][^2]" in cited.text
    # A signed transport URL is never written: the title stands alone.
    assert "sig=secret" not in cited.text and "[^2]: Gamma" in cited.text


def test_unresolved_references_keep_a_numbered_footnote_and_are_counted() -> None:
    cited = footnoted("A." + cite("turn9search9") + " B." + cite("turn0search1") + "\n", REFS)
    assert "A.[^1] B.[^2]" in cited.text
    assert "[^1]: Source `turn9search9` could not be resolved." in cited.text
    assert cited.unresolved == ["turn9search9"]
    assert cited.counts() == {"tokens": 2, "sources": 1, "unresolved": 1}


def test_fenced_code_and_code_spans_are_never_rewritten() -> None:
    fenced = "```python\nprint('" + cite("turn0search0") + "')\n```\n"
    tilde = "~~~\n" + cite("turn0search1") + "\n~~~\n"
    span = "Inline `" + cite("turn0search0") + "` stays."
    text = "# T\n\n" + fenced + "\n" + tilde + "\n" + span + " Cited." + cite("turn0search1") + "\n"
    cited = footnoted(text, REFS)
    assert fenced in cited.text and tilde in cited.text
    assert "Inline `" + cite("turn0search0") + "` stays. Cited.[^1]" in cited.text
    assert cited.counts() == {"tokens": 1, "sources": 1, "unresolved": 0}


def test_an_unclosed_fence_runs_to_the_end_and_stays_untouched() -> None:
    text = "Before." + cite("turn0search0") + "\n````\n" + cite("turn0search1") + "\n```\nstill\n"
    cited = footnoted(text, REFS)
    assert cited.text.startswith("Before.[^1]\n````\n" + cite("turn0search1") + "\n```\nstill\n")
    assert cited.tokens == 1


def test_segments_join_back_and_find_mermaid_blocks() -> None:
    text = "# T\n\n```mermaid\ngraph TD\n  A-->B\n```\n\ntext\n```js\nx\n"
    assert "".join(chunk for _, chunk in markdown_segments(text)) == text
    assert fenced_blocks(text) == [("mermaid", "graph TD\n  A-->B"), ("js", "x")]


def test_a_report_without_tokens_is_unchanged() -> None:
    cited = footnoted("# Title\n\nPlain.\n", REFS)
    assert cited.text == "# Title\n\nPlain.\n"
    assert cited.counts() == {"tokens": 0, "sources": 0, "unresolved": 0}


def test_other_token_kinds_are_left_as_written() -> None:
    entity = S + "entity" + SEP + '["city","Paris"]' + E
    cited = footnoted("See " + entity + ".\n", REFS)
    assert cited.text == "See " + entity + ".\n"
    assert cited.tokens == 0
