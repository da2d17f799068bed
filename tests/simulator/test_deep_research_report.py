"""The Deep Research fixture report: tokens, content_references, export and rendering (no
browser). The page tests are in test_deep_research.py."""

from __future__ import annotations

import re

import pytest

from oraculum.simulator import deep_research as dr
from oraculum.simulator.scenarios import Scenario, ScenarioError, apply
from oraculum.simulator.widget import widget_host

TOKEN = re.compile("\ue200cite((?:\ue202[^\ue201\ue202]+)+)\ue201")


def scenario(*flags: str, **knobs: object) -> Scenario:
    return apply(Scenario(), {"scenario": ",".join(flags), **knobs})


def test_report_has_title_three_plus_citations_one_repeated_and_diagram() -> None:
    markdown = dr.report_markdown(scenario())
    assert markdown.startswith(f"# {dr.REPORT_TITLE}\n")
    tokens = TOKEN.findall(markdown)
    assert len(tokens) >= 3
    assert tokens.count("\ue202turn0search0") == 2  # cited twice
    assert "\ue202turn0search3\ue202turn1search1" in tokens  # one token, two refs
    assert "```mermaid\nflowchart LR" in markdown
    assert "```python\n" in markdown
    assert dr.report_markdown(scenario()) == markdown  # deterministic


def test_content_references_match_each_token_occurrence() -> None:
    markdown = dr.report_markdown(scenario())
    refs = dr.content_references(markdown)
    cited = [r for r in refs if r["type"] == "grouped_webpages"]
    assert len(cited) == len(TOKEN.findall(markdown)) == 5
    for ref in cited:
        assert markdown[ref["start_idx"] : ref["end_idx"]] == ref["matched_text"]
        assert ref["items"] and all(item["url"].startswith("https://") for item in ref["items"])
    two = next(r for r in cited if r["refs"] == ["turn0search3", "turn1search1"])
    assert [i["url"] for i in two["items"]] == [
        dr.SOURCES["turn0search3"].url,
        dr.SOURCES["turn1search1"].url,
    ]
    footnote = refs[-1]
    assert footnote["type"] == "sources_footnote"
    # Distinct sources in order of first citation: zstd, RFC 8878, gzip, tar.
    assert [s["url"] for s in footnote["sources"]] == [
        dr.SOURCES[k].url for k in ("turn0search0", "turn0search2", "turn0search1", "turn0search3")
    ]


def test_unresolved_citation_has_no_reference() -> None:
    markdown = dr.report_markdown(scenario("dr_unresolved_citation"))
    assert dr.token(dr.UNRESOLVED_REF) in markdown
    refs = dr.content_references(markdown)
    assert all(dr.UNRESOLVED_REF not in r.get("refs", []) for r in refs)
    assert len([r for r in refs if r["type"] == "grouped_webpages"]) == 5
    assert 'data-citation="?">?</span>' in dr.report_html(markdown)
    export = dr.export_markdown(markdown)
    assert "\ue200" not in export and dr.UNRESOLVED_REF not in export


def test_tokens_inside_code_fences_are_left_alone() -> None:
    markdown = dr.report_markdown(scenario("dr_code_tokens"))
    fence = (
        "```text\nA transcript may show \ue200cite\ue202turn0search0\ue201"
        " or the bare citeturn0search0"
    )
    assert fence in markdown
    refs = [r for r in dr.content_references(markdown) if r["type"] == "grouped_webpages"]
    fence_at = markdown.index("```text")
    assert len(refs) == 5 and all(r["start_idx"] < fence_at for r in refs)
    export = dr.export_markdown(markdown)
    assert fence in export  # verbatim, token and all
    assert export.count("\ue200") == 1  # only the fenced one survives
    assert "`citeturn0search3`" in export
    html = dr.report_html(markdown)
    assert "\ue200cite\ue202turn0search0\ue201 or the bare citeturn0search0" in html


def test_export_carries_title_every_cited_url_fences_and_sources() -> None:
    markdown = dr.report_markdown(scenario())
    export = dr.export_markdown(markdown)
    assert export.startswith(f"# {dr.REPORT_TITLE}\n")
    for source in set(dr.SOURCES.values()):
        assert source.url in export
    assert "\ue200" not in export and "\ue201" not in export
    assert "```mermaid\nflowchart LR\n  A[Project files] --> B[tar]" in export
    assert "## Sources\n\n- [Zstandard" in export
    assert "ratio. ([facebook.github.io](https://facebook.github.io/zstd/))" in export


def test_rendered_report_numbers_pills_by_first_citation_and_hides_diagram_source() -> None:
    html = dr.report_html(dr.report_markdown(scenario()))
    numbers = re.findall(r'data-citation="(\d)"', html)
    assert numbers == ["1", "2", "3", "4", "3", "1"]
    assert "<h1>" + dr.REPORT_TITLE + "</h1>" in html
    assert 'aria-label="Diagram"' in html and "flowchart" not in html and "-->" not in html
    assert '<code class="language-python">' in html


def test_payload_follows_the_knobs() -> None:
    full = dr.report_payload(scenario(research_ms=2000, research_reported_ms=600000), "m1")
    assert full["label"] == "10m" and full["citations"] == 4
    assert full["report_message"]["id"] == "m1"
    assert full["report_message"]["content"]["parts"][0].startswith("# ")
    assert full["export_markdown"].startswith(f"# {dr.REPORT_TITLE}")
    assert dr.report_payload(scenario("dr_no_export"), "m")["export_markdown"] is None
    assert dr.report_payload(scenario("dr_no_widget_state"), "m")["report_message"] is None
    assert dr.report_payload(scenario(research_ms=4000), "m")["label"] == "4s"


@pytest.mark.parametrize(
    ("ms", "label"), [(900, "1s"), (59_000, "59s"), (600_000, "10m"), (3_900_000, "1h 5m")]
)
def test_completed_label(ms: int, label: str) -> None:
    assert dr.completed_label(ms) == label


def test_turn_kind_clarify_then_research() -> None:
    ask = scenario("dr_clarify")
    assert dr.turn_kind([], None, ask) is None
    assert dr.turn_kind([], "deep_research", ask) == "clarify"
    assert dr.turn_kind(["clarify"], None, ask) == "research"  # the reply starts it
    assert dr.turn_kind(["clarify", "research"], "deep_research", ask) == "research"
    assert dr.turn_kind([None], "deep_research", scenario()) == "research"


def test_progress_steps_through_the_activities() -> None:
    seen = [dr.progress(t, 8.0)["activity"] for t in (0, 2.5, 4.5, 7.9, 100)]
    assert seen == [*dr.STATUS_STEPS, dr.STATUS_STEPS[-1]]
    assert dr.progress(1, 8)["sources"] < dr.progress(7, 8)["sources"]


def test_grok_refuses_deep_research_flags() -> None:
    with pytest.raises(ScenarioError, match="does not apply to grok"):
        apply(Scenario(provider="grok"), {"scenario": "dr_clarify"})


def test_widget_origin_is_another_site_than_the_page() -> None:
    assert widget_host("127.0.0.1") == "localhost"
    assert widget_host("localhost") == "127.0.0.1"
    assert widget_host("::1") == "127.0.0.1"
