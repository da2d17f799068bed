"""Deep Research in the ChatGPT look-alike: the fixture report, its citation tokens and
`content_references`, the export Markdown, the rendered report HTML, and the research schedule.

Everything here is pure and deterministic (facts §1.5, §2.7–2.9): the server calls it when a
Deep Research send is accepted, the page only displays what it returns. The contract with the
driver side is docs/simulator.md "Deep Research".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from typing import Any, cast

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from oraculum.simulator.scenarios import Scenario

__all__ = [
    "CLARIFY_TEXT",
    "EXPORT_FILENAME",
    "REPORT_TITLE",
    "SOURCES",
    "STARTED_TEXT",
    "STATUS_STEPS",
    "Source",
    "completed_label",
    "content_references",
    "export_markdown",
    "progress",
    "report_html",
    "report_markdown",
    "report_payload",
    "token",
    "turn_kind",
]

# Private-use citation markup (facts §2.9): U+E200 keyword (U+E202 ref)+ U+E201.
OPEN, SEP, CLOSE = "\ue200", "\ue202", "\ue201"
TOKEN_RE = re.compile(f"{OPEN}(\\w+)((?:{SEP}[^{SEP}{CLOSE}{OPEN}]+)+){CLOSE}")

REPORT_TITLE = "Archive Formats for Project Snapshots: zstd versus gzip"
EXPORT_FILENAME = "deep-research-report.md"
# The turn text a research start shows (facts §2.8: the model writes it; the widget decides).
STARTED_TEXT = "Deep Research has started working on your report."
CLARIFY_TEXT = (
    "Before I start the research, two quick questions:\n\n"
    "1. Which archive formats should the comparison cover?\n"
    "2. Should the report weigh speed or compression ratio more?\n\n"
    "Reply and I will start the research."
)
# The live activity line; each step lasts a quarter of the research phase.
STATUS_STEPS = ("Reading sources", "Searching the web", "Comparing findings", "Writing the report")
SEARCHES = 14
UNRESOLVED_REF = "turn9search9"


@dataclass(frozen=True)
class Source:
    title: str
    url: str
    attribution: str


_ZSTD = Source(
    "Zstandard - Real-time data compression algorithm",
    "https://facebook.github.io/zstd/",
    "facebook.github.io",
)
_GZIP = Source("GNU Gzip", "https://www.gnu.org/software/gzip/", "gnu.org")
_RFC = Source(
    "RFC 8878: Zstandard Compression and the application/zstd Media Type",
    "https://datatracker.ietf.org/doc/html/rfc8878",
    "ietf.org",
)
_TAR = Source("GNU tar manual", "https://www.gnu.org/software/tar/manual/", "gnu.org")
# Reference id -> source; two ids may name one source, as search turns repeat results.
SOURCES: dict[str, Source] = {
    "turn0search0": _ZSTD,
    "turn0search1": _GZIP,
    "turn0search2": _RFC,
    "turn0search3": _TAR,
    "turn1search1": _GZIP,
}


def token(*refs: str, keyword: str = "cite") -> str:
    return OPEN + keyword + "".join(SEP + ref for ref in refs) + CLOSE


def report_markdown(scenario: Scenario) -> str:
    """The report's Markdown source: title, 5 citations over 4 sources (one repeated, one with
    two refs), a Mermaid fence and a Python fence; the knobs add their parts."""
    parts = [
        f"# {REPORT_TITLE}\n",
        "## Summary\n",
        "Zstandard decompresses several times faster than gzip at a similar compression ratio."
        f"{token('turn0search0')} Its frame format is specified in RFC 8878."
        f"{token('turn0search2')}\n",
        "## Findings\n",
        "- gzip remains the most widely available compressor on build machines."
        f"{token('turn0search1')}\n"
        "- Both formats wrap the same tar stream, so members and their order do not change."
        f"{token('turn0search3', 'turn1search1')}\n"
        "- For large repositories the faster decompression dominates the total time."
        f"{token('turn0search0')}\n",
        "## How a snapshot travels\n",
        "```mermaid\nflowchart LR\n  A[Project files] --> B[tar]\n  B --> C[zstd]\n"
        "  C --> D[Upload]\n```\n",
        "## Reproducing the measurement\n",
        '```python\nimport subprocess\n\nsubprocess.run(["tar", "--zstd", "-cf", '
        '"context.tar.zst", "."], check=True)\n```\n',
    ]
    if scenario.has("dr_unresolved_citation"):
        parts.append(f"Some mirrors still serve only gzip archives.{token(UNRESOLVED_REF)}\n")
    if scenario.has("dr_code_tokens"):
        parts += [
            "## Citation markup in transcripts\n",
            f"```text\nA transcript may show {token('turn0search0')} or the bare "
            "citeturn0search0 left behind.\n```\n",
            "Inline code such as `citeturn0search3` is literal text too.\n",
        ]
    return "\n".join(parts)


def _fence_spans(markdown: str) -> list[tuple[int, int]]:
    """(start, end) offsets of fenced code blocks, fences included: never rewritten."""
    spans: list[tuple[int, int]] = []
    offset, start, fence = 0, -1, ""
    for line in markdown.splitlines(keepends=True):
        stripped = line.strip()
        if start < 0 and stripped.startswith(("```", "~~~")):
            start, fence = offset, stripped[:3]
        elif start >= 0 and stripped.startswith(fence) and stripped.strip("`~") == "":
            spans.append((start, offset + len(line)))
            start = -1
        offset += len(line)
    if start >= 0:
        spans.append((start, len(markdown)))
    return spans


def _tokens(markdown: str) -> list[re.Match[str]]:
    """Citation tokens outside fenced code, in order."""
    spans = _fence_spans(markdown)
    return [m for m in TOKEN_RE.finditer(markdown) if not any(a <= m.start() < b for a, b in spans)]


def _refs(match: re.Match[str]) -> list[str]:
    return [ref for ref in match.group(2).split(SEP) if ref]


def _token_sources(match: re.Match[str]) -> list[Source]:
    seen: list[Source] = []
    for ref in _refs(match):
        source = SOURCES.get(ref)
        if source is not None and source not in seen:
            seen.append(source)
    return seen


def _alt(sources: list[Source]) -> str:
    return "(" + ", ".join(f"[{s.attribution}]({s.url})" for s in sources) + ")"


def _item(source: Source) -> dict[str, str]:
    return {"title": source.title, "url": source.url, "attribution": source.attribution}


def content_references(markdown: str) -> list[dict[str, Any]]:
    """ChatGPT-style `content_references`: one entry per resolvable token occurrence (an
    unresolved token has none), then a `sources_footnote` listing every distinct source."""
    refs: list[dict[str, Any]] = []
    distinct: list[Source] = []
    for match in _tokens(markdown):
        sources = _token_sources(match)
        if not sources:
            continue
        distinct += [s for s in sources if s not in distinct]
        refs.append(
            {
                "matched_text": match.group(0),
                "start_idx": match.start(),
                "end_idx": match.end(),
                "type": "grouped_webpages",
                "refs": _refs(match),
                "items": [_item(s) for s in sources],
                "alt": _alt(sources),
            }
        )
    refs.append(
        {"matched_text": " ", "type": "sources_footnote", "sources": [_item(s) for s in distinct]}
    )
    return refs


def _replace_tokens(markdown: str, replace: Callable[[re.Match[str]], str]) -> str:
    out: list[str] = []
    last = 0
    for match in _tokens(markdown):
        out.append(markdown[last : match.start()])
        out.append(replace(match))
        last = match.end()
    out.append(markdown[last:])
    return "".join(out)


def _cited_order(markdown: str) -> list[Source]:
    order: list[Source] = []
    for match in _tokens(markdown):
        order += [s for s in _token_sources(match) if s not in order]
    return order


def export_markdown(markdown: str) -> str:
    """What Export → "Export to Markdown" downloads: tokens become their `alt` links (an
    unresolved one is dropped), fences stay verbatim, a Sources list ends it."""

    def alt(match: re.Match[str]) -> str:
        sources = _token_sources(match)
        return " " + _alt(sources) if sources else ""

    body = _replace_tokens(markdown, alt).rstrip("\n")
    listed = "\n".join(f"- [{s.title}]({s.url})" for s in _cited_order(markdown))
    return f"{body}\n\n## Sources\n\n{listed}\n"


# -- rendered report -------------------------------------------------------------------------
_CITE_MARK = "SIMCITEMARK{}X"
_MERMAID_NODE = re.compile(r"\[([^\]]+)\]")


def _diagram(code: str) -> str:
    """A Mermaid fence as the page draws it: an SVG with the node labels, no source text."""
    labels = list(dict.fromkeys(_MERMAID_NODE.findall(code)))
    texts = "".join(
        f'<text x="{10 + 120 * i}" y="30">{escape(label)}</text>' for i, label in enumerate(labels)
    )
    width = 120 * max(1, len(labels))
    return (
        '<figure class="mermaid-diagram"><svg role="img" aria-label="Diagram" '
        f'width="{width}" height="48" viewBox="0 0 {width} 48">{texts}</svg></figure>'
    )


def _fence(
    tokens: list[Token], idx: int, options: OptionsDict, env: EnvType, renderer: Any = None
) -> str:
    tok = tokens[idx]
    lang = tok.info.strip().split(" ")[0] if tok.info else ""
    if lang == "mermaid":
        return _diagram(tok.content)
    cls = f' class="language-{escape(lang)}"' if lang else ""
    return f"<pre><code{cls}>{escape(tok.content)}</code></pre>"


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    renderer = md.renderer
    assert isinstance(renderer, RendererHTML)
    rules = cast("dict[str, Callable[..., str]]", renderer.rules)
    rules["fence"] = _fence
    rules["code_block"] = _fence
    return md


_MD = _parser()


def _pills(sources: list[Source], numbers: dict[Source, int]) -> str:
    if not sources:
        return '<span class="citation-pill" data-citation="?">?</span>'
    return "".join(
        f'<span class="citation-pill" data-citation="{numbers[s]}">'
        f'<a href="{escape(s.url, quote=True)}" target="_blank" rel="noopener">{numbers[s]}</a>'
        "</span>"
        for s in sources
    )


def report_html(markdown: str) -> str:
    """The report as the widget renders it: each token a pill per source numbered by first
    citation (an unresolved one shows "?"), Mermaid drawn without its source."""
    numbers = {s: i + 1 for i, s in enumerate(_cited_order(markdown))}
    pills: list[str] = []

    def mark(match: re.Match[str]) -> str:
        pills.append(_pills(_token_sources(match), numbers))
        return _CITE_MARK.format(len(pills) - 1)

    html = _MD.render(_replace_tokens(markdown, mark)).replace(">\n<", "><").strip()
    for index, pill in enumerate(pills):
        html = html.replace(_CITE_MARK.format(index), pill, 1)
    return html


# -- schedule --------------------------------------------------------------------------------
def turn_kind(kinds: list[str | None], tool: str | None, scenario: Scenario) -> str | None:
    """What the assistant turn answering a send is: "clarify", "research" or None (ordinary).
    `kinds`: the research kinds of the conversation's assistant turns so far, oldest first."""
    awaiting = bool(kinds) and kinds[-1] == "clarify"
    if awaiting:
        return "research"  # the reply to the question starts the research, pill or not
    if tool != "deep_research":
        return None
    if scenario.has("dr_clarify") and "clarify" not in kinds:
        return "clarify"
    return "research"


def completed_label(ms: int) -> str:
    seconds = max(1, round(ms / 1000))
    if seconds < 60:
        return f"{seconds}s"
    minutes = seconds // 60
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes}m" if hours else f"{minutes}m"


def progress(elapsed_s: float, research_s: float) -> dict[str, Any]:
    """The live status `elapsed_s` into a research phase of `research_s`."""
    fraction = 1.0 if research_s <= 0 else min(1.0, max(0.0, elapsed_s / research_s))
    step = min(len(STATUS_STEPS) - 1, int(fraction * len(STATUS_STEPS)))
    return {
        "activity": STATUS_STEPS[step],
        "sources": 1 + int(fraction * 11),
        "searches": 1 + int(fraction * (SEARCHES - 1)),
    }


def report_payload(scenario: Scenario, message_id: str) -> dict[str, Any]:
    """The finished report as the page hands it to the widget (knobs applied)."""
    markdown = report_markdown(scenario)
    reported = scenario.research_reported_ms or scenario.research_ms
    message = {
        "id": message_id,
        "author": {"role": "assistant", "name": "deep_research"},
        "content": {"content_type": "text", "parts": [markdown]},
        "metadata": {"content_references": content_references(markdown)},
    }
    return {
        "title": REPORT_TITLE,
        "html": report_html(markdown),
        "label": completed_label(reported),
        "citations": len(_cited_order(markdown)),
        "searches": SEARCHES,
        "report_message": None if scenario.has("dr_no_widget_state") else message,
        "export_markdown": None if scenario.has("dr_no_export") else export_markdown(markdown),
        "export_filename": EXPORT_FILENAME,
    }
