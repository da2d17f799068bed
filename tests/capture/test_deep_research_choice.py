"""Which Deep Research source becomes the response, and the gaps each choice names (pure)."""

from __future__ import annotations

from oraculum.capture.deep_research import (
    ExportRead,
    RenderedReport,
    WidgetState,
    choose_report,
    report_body,
    validate_export,
)
from oraculum.capture.research import widget_state

TOKEN = "\ue200cite\ue202turn0search0\ue201"
REFS = [
    {
        "matched_text": TOKEN,
        "refs": ["turn0search0"],
        "items": [{"title": "Zstd", "url": "https://facebook.github.io/zstd/"}],
    }
]
WIDGET = WidgetState(
    "# Formats\n\nZstd is fast." + TOKEN + "\n\n```mermaid\nflowchart LR\n  A-->B\n```\n", REFS
)
EXPORT_MD = b"# Formats\n\nZstd is fast ([github.io](https://facebook.github.io/zstd/)).\n"


def test_a_validated_export_wins_and_the_widget_resolves_its_tokens() -> None:
    choice = choose_report(ExportRead(EXPORT_MD, "deep-research-report.md"), WIDGET, None)
    assert choice is not None
    assert choice.method == "native_report_download"
    assert choice.fidelity == "native_markdown"
    assert choice.text == EXPORT_MD.decode()
    assert choice.gaps == []
    assert choice.export == {"state": "validated", "name": "deep-research-report.md"}


def test_an_export_missing_a_cited_url_is_a_required_gap() -> None:
    choice = choose_report(ExportRead(b"# Formats\n\nNo links.\n"), WIDGET, None)
    assert choice is not None and choice.method == "native_report_download"
    assert choice.gaps == ["native_export_source_links"]


def test_an_export_without_the_title_falls_back_to_the_widget_state() -> None:
    choice = choose_report(ExportRead(b"# Something else\n\ntext\n"), WIDGET, None)
    assert choice is not None
    assert choice.method == "report_widget_state"
    assert choice.fidelity == "native_markdown"
    assert choice.gaps == ["native_markdown_export"]
    assert choice.export["state"] == "rejected"
    assert "Formats" in choice.export["reason"]
    assert "Zstd is fast.[^1]" in choice.text
    assert choice.text.endswith("[^1]: [Zstd](https://facebook.github.io/zstd/)\n")
    assert "```mermaid\nflowchart LR\n  A-->B\n```" in choice.text and choice.diagrams == 1
    assert choice.citations == {"tokens": 1, "sources": 1, "unresolved": 0}


def test_no_export_and_an_unresolved_token() -> None:
    widget = WidgetState(WIDGET.report_message + "More.\ue200cite\ue202turn9search9\ue201\n", REFS)
    choice = choose_report(
        ExportRead(None, reason="the report has no Export control"), widget, None
    )
    assert choice is not None
    assert choice.gaps == ["native_markdown_export", "unresolved_source_links"]
    assert choice.export == {"state": "absent", "reason": "the report has no Export control"}
    assert choice.citations == {"tokens": 2, "sources": 1, "unresolved": 1}


def test_export_without_widget_state_names_the_missing_state() -> None:
    rendered = RenderedReport("# Formats\n\nZstd is fast.[1]\n", citation_pills=1, title="Formats")
    choice = choose_report(ExportRead(EXPORT_MD), None, rendered)
    assert choice is not None and choice.method == "native_report_download"
    assert choice.gaps == ["research_widget_state"]


def test_the_rendered_report_is_the_last_resort_and_says_what_it_lacks() -> None:
    rendered = RenderedReport(
        "# Formats\n\nZstd is fast.[1]\n\n[Diagram]\n",
        citation_pills=1,
        diagrams_without_source=1,
        title="Formats",
    )
    choice = choose_report(ExportRead(None, reason="none"), None, rendered)
    assert choice is not None
    assert choice.method == "rendered_report" and choice.fidelity == "derived_markdown"
    assert choice.gaps == [
        "native_markdown_export",
        "research_widget_state",
        "unresolved_source_links",
        "diagram_source:1",
    ]
    assert choice.citations == {"tokens": 1, "sources": 0, "unresolved": 1}
    assert choose_report(None, None, None) is None


def test_export_validation() -> None:
    assert validate_export(b"", "T") == "the export is empty"
    assert validate_export(b"\xff\xfe", "T") == "the export is not UTF-8 text"
    assert validate_export(b"no heading T", "T") == "the export has no heading line"
    assert validate_export(b"# T\n", None) is not None
    assert validate_export(b"#   The   Title\n", "the title") is None


def test_report_body_drops_the_status_line_and_animated_counters() -> None:
    counter = "\n".join(str(d) for d in range(10))
    text = (
        "Research completed in 10m · \n"
        + counter
        + "\n citations · \n"
        + counter
        + "\n searches\n\nArchive formats\n\nzstd is fast.\n1\n\nNext"
    )
    label, body = report_body(text)
    assert label == "Research completed in 10m ·"
    assert body == "Archive formats\n\nzstd is fast.\n1\n\nNext"
    assert report_body("Researching…\nReading sources") == (None, "Researching…\nReading sources")


def test_widget_state_shapes() -> None:
    message = {
        "report_message": {
            "content": {"content_type": "text", "parts": ["# T\n"]},
            "metadata": {"content_references": REFS},
        }
    }
    assert widget_state(message) == WidgetState("# T\n", REFS)
    assert widget_state({"report_message": "# T\n"}) == WidgetState("# T\n", [])
    assert widget_state(None) is None
    assert widget_state({"report_message": {"content": {"parts": []}}}) is None
