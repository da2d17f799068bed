"""Pure collection decisions: which text is the response, how faithful it is, what is missing.

Nothing here touches the page or the disk, so every rule has a direct unit test.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from oraculum.capture.page import CodeBlock
from oraculum.capture.redact import literal_urls, redact_transport_secrets, safe_url
from oraculum.jobs.comparison import COMPARISON_GAP


class Fidelity(StrEnum):
    NATIVE_MARKDOWN = "native_markdown"  # a Deep Research report's own Markdown source
    EXACT_CODE = "exact_code"
    DERIVED_MARKDOWN = "derived_markdown"
    TEXT_ONLY = "text_only"


class CollectionStatus(StrEnum):
    COMPLETE = "complete"
    PARTIAL = "partial"
    FAILED = "failed"


# Gap names (docs/collection.md). Required gaps mean the answer itself is degraded; optional
# ones mean a secondary file is missing. Prefixed gaps carry a suffix after the colon.
GAP_RESPONSE = "response"
GAP_RICH_FIDELITY = "rich_response_fidelity"
GAP_UNRESOLVED_SOURCES = "unresolved_source_links"
GAP_BOUND_CAPTURE = "bound_response_capture"
GAP_REDACTED = "redacted_transport_links"
GAP_ARTIFACT_PREFIX = "artifact:"
GAP_INSPECTION_PREFIX = "artifact_inspection:"
GAP_CAPTURE_ERROR_PREFIX = "capture_error:"
# Deep Research reports (capture.deep_research).
GAP_NATIVE_EXPORT = "native_markdown_export"
GAP_WIDGET_STATE = "research_widget_state"
GAP_EXPORT_SOURCE_LINKS = "native_export_source_links"
GAP_DIAGRAM_PREFIX = "diagram_source:"
# The page showed several candidate answers and asked which one is preferred: each is saved
# (response.md, response-2.md, ...) and none was chosen.
GAP_COMPARISON = COMPARISON_GAP

REQUIRED_GAPS = frozenset(
    {
        GAP_RESPONSE,
        GAP_RICH_FIDELITY,
        GAP_UNRESOLVED_SOURCES,
        GAP_BOUND_CAPTURE,
        GAP_REDACTED,
        GAP_EXPORT_SOURCE_LINKS,
        GAP_COMPARISON,
    }
)
REQUIRED_GAP_PREFIXES = (GAP_DIAGRAM_PREFIX,)
MARKDOWN_LANGUAGES = frozenset({"markdown", "md"})

# Whole lines of UI chrome that are not the answer (reasoning labels, buttons), dropped from
# text-only output.
_CHROME_LINE = re.compile(
    r"^(?:Stopped thinking|(?:Worked|Thought|Reasoned) for(?:\s+\d+(?:\.\d+)?\s*[hms])+"
    r"|Do you like this personality\?|Copy code)$",
    re.IGNORECASE,
)


def is_required_gap(gap: str) -> bool:
    return gap in REQUIRED_GAPS or gap.startswith(REQUIRED_GAP_PREFIXES)


def strip_chrome(text: str, chrome: Iterable[str] = ()) -> str:
    """``text`` without chrome lines: known labels, and the texts the capture named as chrome
    inside this turn."""
    named = {" ".join(c.split()) for c in chrome if c.strip()}
    kept = [
        line
        for line in text.splitlines()
        if not _CHROME_LINE.match(line.strip()) and " ".join(line.split()) not in named
    ]
    return "\n".join(kept).strip()


@dataclass(frozen=True)
class ResponseChoice:
    text: str
    fidelity: Fidelity
    method: str
    redacted: bool = False


def _ending_with_newline(text: str) -> str:
    # response.md is a text file: a text that lacks the final newline gets one, nothing else.
    return text if text.endswith("\n") else text + "\n"


def choose_response(
    code_blocks: Sequence[CodeBlock], markdown: str, raw_text: str, chrome: Iterable[str] = ()
) -> ResponseChoice | None:
    """The response text (ending with a newline) and its fidelity claim, before redaction;
    None when there is nothing. ``chrome``: texts the capture named as chrome in the turn."""
    choice = _choose(code_blocks, markdown, raw_text, tuple(chrome))
    return None if choice is None else replace(choice, text=_ending_with_newline(choice.text))


def _choose(
    code_blocks: Sequence[CodeBlock], markdown: str, raw_text: str, chrome: tuple[str, ...]
) -> ResponseChoice | None:
    """A single markdown code block *is* the answer verbatim (the model was asked for a file);
    otherwise the derived Markdown; text only when the HTML yields no Markdown at all."""
    markdown_blocks = [b for b in code_blocks if b.language.lower() in MARKDOWN_LANGUAGES]
    if len(markdown_blocks) == 1 and markdown_blocks[0].text.strip():
        return ResponseChoice(markdown_blocks[0].text, Fidelity.EXACT_CODE, "code_text_content")
    if markdown.strip():
        return ResponseChoice(markdown, Fidelity.DERIVED_MARKDOWN, "sanitized_html_markdown")
    text = strip_chrome(raw_text, chrome)
    if text:
        return ResponseChoice(text, Fidelity.TEXT_ONLY, "inner_text")
    return None


def redact_choice(choice: ResponseChoice) -> ResponseChoice:
    """``choice`` with transport secrets redacted; a changed text drops to text_only."""
    redacted = redact_transport_secrets(choice.text)
    if redacted == choice.text:
        return choice
    return ResponseChoice(redacted, Fidelity.TEXT_ONLY, choice.method, redacted=True)


def inventory_sources(
    page_sources: Iterable[dict[str, Any]], texts: Iterable[str], base_url: str | None
) -> list[dict[str, Any]]:
    """The page's link sources plus safe literal URLs found in the text and code.

    Unsafe literal URLs are not listed: they are redacted wherever they are written."""
    sources = [dict(s) for s in page_sources]
    known = {s["url"] for s in sources if s.get("url")}
    for text in texts:
        for url in literal_urls(text):
            safe = safe_url(url, base_url)
            if safe is None or safe in known:
                continue
            known.add(safe)
            sources.append(
                {"id": f"source-{len(sources) + 1}", "kind": "citation", "label": safe, "url": safe}
            )
    return sources


@dataclass
class Gaps:
    required: list[str] = field(default_factory=list)
    optional: list[str] = field(default_factory=list)

    def add(self, gap: str) -> None:
        bucket = self.required if is_required_gap(gap) else self.optional
        if gap not in bucket:
            bucket.append(gap)

    def all(self) -> list[str]:
        return [*self.required, *self.optional]

    @classmethod
    def of(cls, gaps: Iterable[str]) -> Gaps:
        result = cls()
        for gap in gaps:
            result.add(gap)
        return result


def capture_error_gap(message: str) -> str:
    # One line, bounded: gap names land in job.json and status tables.
    line = " ".join(message.split())
    return GAP_CAPTURE_ERROR_PREFIX + (line[:160] or "unknown")


def collection_gaps(
    *,
    choice: ResponseChoice | None,
    sources: Iterable[dict[str, Any]],
    inspection_state: str,
    artifacts: Iterable[dict[str, Any]],
    capture_errors: Iterable[str] = (),
) -> Gaps:
    gaps = Gaps()
    if choice is None:
        gaps.add(GAP_RESPONSE)
    else:
        if choice.fidelity == Fidelity.TEXT_ONLY:
            gaps.add(GAP_RICH_FIDELITY)
        if choice.redacted:
            gaps.add(GAP_REDACTED)
    if any(s.get("unresolved") and s.get("kind") != "artifact" for s in sources):
        gaps.add(GAP_UNRESOLVED_SOURCES)
    if inspection_state != "inspected":
        gaps.add(GAP_INSPECTION_PREFIX + inspection_state)
    for record in artifacts:
        # Entries without a state or id are legacy: absence is unknown, not failure.
        state, candidate = record.get("state"), record.get("candidateId")
        if not state or not candidate or state == "validated":
            continue
        gap = GAP_ARTIFACT_PREFIX + str(candidate)
        if record.get("required"):
            if gap not in gaps.required:
                gaps.required.append(gap)
        else:
            gaps.add(gap)
    for message in capture_errors:
        gaps.add(capture_error_gap(message))
    return gaps


def add_comparison_gaps(gaps: Gaps, others: Sequence[ResponseChoice | None]) -> None:
    """A comparison's gaps: that it was one (every candidate saved, none chosen), and what is
    missing from the other candidates (``others``: the second's choice first)."""
    gaps.add(GAP_COMPARISON)
    for number, choice in enumerate(others, start=2):
        if choice is None:
            gaps.add(capture_error_gap(f"comparison response {number} has no text"))
        elif choice.redacted:
            gaps.add(GAP_REDACTED)


def collection_status(response_saved: bool, gaps: Gaps) -> CollectionStatus:
    if not response_saved:
        return CollectionStatus.FAILED
    if gaps.required or gaps.optional:
        return CollectionStatus.PARTIAL
    return CollectionStatus.COMPLETE
