"""Which Deep Research report text is the response, and what is missing (pure decisions).

Source precedence: the native Markdown export (only once validated: UTF-8 text with a heading
line that carries the report title) → the Markdown the widget holds as its Apps SDK state
(``report_message``) → the rendered report. The first two are the report's own source
(`native_markdown`); citation tokens in them become footnotes defined from the widget's
``content_references``. Gaps (docs/collection.md): `native_markdown_export` and
`research_widget_state` (optional) when those sources were not had; `unresolved_source_links`
when a citation resolves to nothing; `native_export_source_links` when the export lacks a cited
URL; `diagram_source:<n>` when n diagrams were only had rendered, without their source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from oraculum.capture import outcome
from oraculum.capture.citations import CitedMarkdown, fenced_blocks, footnoted

__all__ = [
    "ExportRead",
    "RenderedReport",
    "ReportChoice",
    "WidgetState",
    "choose_report",
    "report_body",
    "report_title",
    "validate_export",
]

METHOD_EXPORT = "native_report_download"
METHOD_WIDGET = "report_widget_state"
METHOD_RENDERED = "rendered_report"
COMPLETED_PREFIX = "Research completed in"
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_COUNTER_LINE = re.compile(r"^(?:\d|·|\d*\s*citations?\s*·?|\d*\s*searches?|[·\s]*)$", re.I)


@dataclass(frozen=True)
class WidgetState:
    """The widget's Apps SDK state: the report's Markdown and its content references."""

    report_message: str
    content_references: list[Any] = field(default_factory=list)
    title: str | None = None


@dataclass(frozen=True)
class ExportRead:
    """What the Export → "Export to Markdown" download gave: bytes, or why not."""

    data: bytes | None
    name: str | None = None
    reason: str | None = None  # why there are no bytes (no export control, nothing came, …)


@dataclass(frozen=True)
class RenderedReport:
    """The report as the frame renders it, already turned into text: citation pills kept as
    visible ``[n]``, each diagram rendered without source a placeholder."""

    text: str
    citation_pills: int = 0
    diagrams_without_source: int = 0
    title: str | None = None


@dataclass(frozen=True)
class ReportChoice:
    text: str
    fidelity: outcome.Fidelity
    method: str
    gaps: list[str]
    citations: dict[str, int]
    diagrams: int  # Mermaid fences kept as source
    export: dict[str, Any]  # {state: validated|rejected|absent, reason?, name?}


def report_title(markdown: str) -> str | None:
    """The report's title: its first Markdown heading."""
    heading = _HEADING.search(markdown)
    return heading.group(1).strip() if heading else None


def report_body(inner_text: str) -> tuple[str | None, str]:
    """(the "Research completed in …" line, the report after it) from the frame's text; the
    animated counters and separators that follow the status line are dropped, single-digit
    lines inside the body (citation markers) are kept. No status line: (None, text)."""
    lines = inner_text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.strip().startswith(COMPLETED_PREFIX)), None)
    if start is None:
        return None, inner_text.strip()
    body = start + 1
    while body < len(lines) and _COUNTER_LINE.match(lines[body].strip()):
        body += 1
    return lines[start].strip(), "\n".join(lines[body:]).rstrip()


def validate_export(data: bytes, title: str | None) -> str | None:
    """Why the exported bytes are not the report's Markdown (None: they are)."""
    if not data:
        return "the export is empty"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "the export is not UTF-8 text"
    if "\x00" in text:
        return "the export holds a NUL byte"
    if _HEADING.search(text) is None:
        return "the export has no heading line"
    if not title:
        return "the report title is unknown, so the export cannot be checked against it"
    if _squash(title) not in _squash(text):
        return f"the export does not carry the report title {title!r}"
    return None


def _squash(text: str) -> str:
    return " ".join(text.split()).casefold()


def choose_report(
    export: ExportRead | None, widget: WidgetState | None, rendered: RenderedReport | None
) -> ReportChoice | None:
    """The report text and what is missing, by source precedence; None when no source."""
    title = (widget.title or report_title(widget.report_message)) if widget else None
    title = title or (rendered.title if rendered else None)
    export_state = _export_state(export, title)
    references = widget.content_references if widget else []
    if export_state["state"] == "validated" and export is not None and export.data:
        cited = footnoted(export.data.decode("utf-8"), references)
        gaps = [] if widget else [outcome.GAP_WIDGET_STATE]
        if widget and _missing_links(cited, footnoted(widget.report_message, references)):
            gaps.append(outcome.GAP_EXPORT_SOURCE_LINKS)
        return _source_choice(cited, METHOD_EXPORT, gaps, export_state)
    if widget is not None and widget.report_message.strip():
        cited = footnoted(widget.report_message, references)
        return _source_choice(cited, METHOD_WIDGET, [outcome.GAP_NATIVE_EXPORT], export_state)
    if rendered is not None and rendered.text.strip():
        return _rendered_choice(rendered, export_state)
    return None


def _export_state(export: ExportRead | None, title: str | None) -> dict[str, Any]:
    if export is None or export.data is None:
        reason = export.reason if export else "no export was attempted"
        return {"state": "absent", "reason": reason}
    rejected = validate_export(export.data, title)
    state: dict[str, Any] = {"state": "rejected" if rejected else "validated", "name": export.name}
    if rejected:
        state["reason"] = rejected
    return state


def _missing_links(chosen: CitedMarkdown, widget: CitedMarkdown) -> bool:
    """Whether a URL the widget's report cites is absent from the chosen text."""
    return any(s.url and s.url not in chosen.text for s in widget.sources)


def _source_choice(
    cited: CitedMarkdown, method: str, gaps: list[str], export: dict[str, Any]
) -> ReportChoice:
    if cited.unresolved:
        gaps.append(outcome.GAP_UNRESOLVED_SOURCES)
    diagrams = sum(1 for info, _ in fenced_blocks(cited.text) if info.lower() == "mermaid")
    return ReportChoice(
        text=_with_newline(cited.text),
        fidelity=outcome.Fidelity.NATIVE_MARKDOWN,
        method=method,
        gaps=gaps,
        citations=cited.counts(),
        diagrams=diagrams,
        export=export,
    )


def _rendered_choice(rendered: RenderedReport, export: dict[str, Any]) -> ReportChoice:
    gaps = [outcome.GAP_NATIVE_EXPORT, outcome.GAP_WIDGET_STATE]
    if rendered.citation_pills:
        gaps.append(outcome.GAP_UNRESOLVED_SOURCES)
    if rendered.diagrams_without_source:
        gaps.append(f"{outcome.GAP_DIAGRAM_PREFIX}{rendered.diagrams_without_source}")
    return ReportChoice(
        text=_with_newline(rendered.text),
        fidelity=outcome.Fidelity.DERIVED_MARKDOWN,
        method=METHOD_RENDERED,
        gaps=gaps,
        # Pills show numbers only: each is a citation whose source is not known.
        citations={
            "tokens": rendered.citation_pills,
            "sources": 0,
            "unresolved": rendered.citation_pills,
        },
        diagrams=0,
        export=export,
    )


def _with_newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"
