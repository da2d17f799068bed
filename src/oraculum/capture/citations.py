"""Deep Research citation tokens → Markdown footnotes (pure: no page, no disk).

A report's Markdown source (the native export or the widget's `report_message`) cites with
private-use tokens: U+E200 ``cite`` U+E202 ``turn0search0`` (U+E202 ``ref``)* U+E201. Each token
becomes footnote references, one number per distinct source in order of first citation, defined
at the end from the widget's ``content_references``; a reference nothing resolves keeps a numbered
footnote saying so and is counted as unresolved. Fenced code (and inline code spans) is never
rewritten: a token-like text there is the report's own content, not a citation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from oraculum.capture.redact import safe_url

__all__ = [
    "CitedMarkdown",
    "Source",
    "fenced_blocks",
    "footnoted",
    "markdown_segments",
    "reference_index",
]

TOKEN_START, TOKEN_END, TOKEN_SEP = "\ue200", "\ue201", "\ue202"
CITE_KEYWORDS = frozenset({"cite", "filecite"})
_TOKEN = re.compile(
    f"{TOKEN_START}([A-Za-z_]+)((?:{TOKEN_SEP}[^{TOKEN_START}{TOKEN_END}{TOKEN_SEP}]*)+){TOKEN_END}"
)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)


# Fences -------------------------------------------------------------------------------------


def markdown_segments(text: str) -> list[tuple[bool, str]]:
    """``text`` cut into (is_code, chunk) pieces that join back to ``text``: fenced blocks
    (opening to closing fence, or to the end when unclosed) are code, the rest prose."""
    segments: list[tuple[bool, str]] = []
    prose: list[str] = []
    code: list[str] = []
    fence: str | None = None
    for line in text.splitlines(keepends=True):
        if fence is None:
            opened = _FENCE.match(line.rstrip("\r\n"))
            if opened and not (opened.group(1)[0] == "`" and "`" in opened.group(2)):
                _flush(segments, False, prose)
                fence, code = opened.group(1), [line]
            else:
                prose.append(line)
            continue
        code.append(line)
        if _closes(line, fence):
            _flush(segments, True, code)
            fence = None
    _flush(segments, fence is not None, code if fence is not None else prose)
    return segments


def _closes(line: str, fence: str) -> bool:
    closing = _FENCE.match(line.rstrip("\r\n"))
    return bool(
        closing
        and closing.group(1)[0] == fence[0]
        and len(closing.group(1)) >= len(fence)
        and not closing.group(2).strip()
    )


def _flush(segments: list[tuple[bool, str]], is_code: bool, lines: list[str]) -> None:
    if lines:
        segments.append((is_code, "".join(lines)))
        lines.clear()


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """(info string, body) of every fenced block, e.g. ("mermaid", "graph TD …")."""
    blocks = []
    for is_code, chunk in markdown_segments(text):
        if not is_code:
            continue
        lines = chunk.splitlines()
        opened = _FENCE.match(lines[0])
        info = opened.group(2).strip().split(" ")[0] if opened else ""
        closed = len(lines) > 1 and opened is not None and _closes(lines[-1], opened.group(1))
        blocks.append((info, "\n".join(lines[1:-1] if closed else lines[1:])))
    return blocks


# Sources ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """One cited source: its safe URL (None when it has none or only an unsafe one) and title."""

    title: str
    url: str | None

    @property
    def key(self) -> str:
        return self.url or f"title:{self.title}"


def _ref_id(ref: Any) -> str | None:
    """A reference as the token spells it: ``turn0search0`` (a string, or ChatGPT's
    {turn_index, ref_type, ref_index})."""
    if isinstance(ref, str) and ref.strip():
        return ref.strip()
    if isinstance(ref, Mapping) and {"turn_index", "ref_type", "ref_index"} <= ref.keys():
        return f"turn{ref['turn_index']}{ref['ref_type']}{ref['ref_index']}"
    return None


def _entry_sources(entry: Mapping[str, Any]) -> list[Source]:
    """The sources one content reference names (``items``/``sources`` or itself)."""
    raw = entry.get("items") or entry.get("sources") or ([entry] if entry.get("url") else [])
    sources = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, Mapping):
            continue
        url = safe_url(str(item.get("url") or "")) if item.get("url") else None
        title = str(item.get("title") or item.get("attribution") or url or "").strip()
        if title or url:
            sources.append(Source(title or (url or ""), url))
    return sources


@dataclass
class ReferenceIndex:
    """content_references indexed by the whole token text and by each reference id."""

    by_token: dict[str, list[Source]] = field(default_factory=dict)
    by_ref: dict[str, list[Source]] = field(default_factory=dict)

    def resolve(self, token: str, refs: Sequence[str]) -> tuple[list[Source], list[str]]:
        """(sources, unresolved reference ids) for one token."""
        whole = self.by_token.get(token)
        if whole:
            return list(whole), []
        sources: list[Source] = []
        unresolved: list[str] = []
        for ref in refs:
            found = self.by_ref.get(ref)
            if found:
                sources.extend(found)
            else:
                unresolved.append(ref)
        return sources, unresolved


def reference_index(content_references: Iterable[Any]) -> ReferenceIndex:
    index = ReferenceIndex()
    for entry in content_references:
        if not isinstance(entry, Mapping):
            continue
        sources = _entry_sources(entry)
        if not sources:
            continue
        matched = entry.get("matched_text")
        if isinstance(matched, str) and matched:
            index.by_token.setdefault(matched, sources)
        ids = [_ref_id(r) for r in entry.get("refs") or []]
        if isinstance(matched, str) and (token := _TOKEN.fullmatch(matched.strip())):
            named = [r.strip() for r in token.group(2).split(TOKEN_SEP) if r.strip()]
            if len(named) == 1:  # a one-reference token says what that reference is
                ids += named
        for ref in [*ids, _ref_id(entry.get("ref_id")), _ref_id(entry.get("id"))]:
            if ref:
                index.by_ref.setdefault(ref, sources)
    return index


# Footnotes ----------------------------------------------------------------------------------


@dataclass
class CitedMarkdown:
    """The report with footnotes, and what its citations came to."""

    text: str
    tokens: int = 0  # citation tokens rewritten (never counting code)
    sources: list[Source] = field(default_factory=list)  # resolved, in footnote order
    unresolved: list[str] = field(default_factory=list)  # reference ids nothing resolved

    def counts(self) -> dict[str, int]:
        return {
            "tokens": self.tokens,
            "sources": len(self.sources),
            "unresolved": len(self.unresolved),
        }


class _Notes:
    """Footnote numbers, one per distinct source or unresolved reference, first come first."""

    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}
        self.lines: list[str] = []
        self.sources: list[Source] = []
        self.unresolved: list[str] = []

    def _number(self, key: str, definition: str) -> int:
        if key not in self.numbers:
            self.numbers[key] = len(self.numbers) + 1
            self.lines.append(f"[^{self.numbers[key]}]: {definition}")
        return self.numbers[key]

    def source(self, source: Source) -> int:
        if source.key not in self.numbers:
            self.sources.append(source)
        title = _escape_label(source.title)
        return self._number(source.key, f"[{title}]({source.url})" if source.url else title)

    def missing(self, ref: str) -> int:
        key = f"unresolved:{ref}"
        if key not in self.numbers:
            self.unresolved.append(ref)
        return self._number(key, f"Source `{ref}` could not be resolved.")


def _escape_label(title: str) -> str:
    return " ".join(title.split()).replace("[", r"\[").replace("]", r"\]")


def footnoted(markdown: str, content_references: Iterable[Any]) -> CitedMarkdown:
    """``markdown`` with every citation token outside code turned into footnote references,
    their definitions appended at the end."""
    index = reference_index(content_references)
    notes = _Notes()
    tokens = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal tokens
        keyword, body = match.group(1), match.group(2)
        if keyword.lower() not in CITE_KEYWORDS:
            return match.group(0)  # not a citation (navlist, entity, …): left as written
        tokens += 1
        refs = [r.strip() for r in body.split(TOKEN_SEP) if r.strip()]
        sources, unresolved = index.resolve(match.group(0), refs)
        numbers = [notes.source(s) for s in sources] + [notes.missing(r) for r in unresolved]
        if not numbers:
            numbers = [notes.missing(match.group(0).strip(TOKEN_START + TOKEN_END))]
        return "".join(f"[^{n}]" for n in dict.fromkeys(numbers))

    pieces = [
        chunk if is_code else _outside_code_spans(chunk, lambda t: _TOKEN.sub(replace, t))
        for is_code, chunk in markdown_segments(markdown)
    ]
    text = "".join(pieces)
    if notes.lines:
        text = text.rstrip("\n") + "\n\n" + "\n".join(notes.lines) + "\n"
    return CitedMarkdown(text, tokens, notes.sources, notes.unresolved)


def _outside_code_spans(text: str, rewrite: Any) -> str:
    """``rewrite`` applied to ``text`` except inside inline code spans."""
    out, last = [], 0
    for span in _CODE_SPAN.finditer(text):
        out.append(rewrite(text[last : span.start()]))
        out.append(span.group(0))
        last = span.end()
    out.append(rewrite(text[last:]))
    return "".join(out)
