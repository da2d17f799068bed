"""Markdown from a turn's sanitized HTML, with markdownify doing the walking.

What we add on top of markdownify's defaults, and why:
- controls and embeds (`button`, `svg`, `iframe`, `form`) are dropped with their text, so action
  bars ("Copy", "Good response") and code headers never reach the answer;
- a `pre` that wraps another `pre` is a presentation wrapper (ChatGPT puts a language label and a
  "Copy code" button in it): only leaf `pre` elements become code, so nothing is counted twice;
- code fences are one backtick longer than the longest backtick run in the code (at least three)
  and carry the language from a `language-<x>` class; the code text is taken verbatim;
- table cells escape `|` and keep line breaks as `<br>` so GFM tables stay one row per line;
- a link keeps its target only when the URL is safe (see redact.safe_url), else only its text.
"""

from __future__ import annotations

import re
from typing import Any

from bs4 import BeautifulSoup, Tag
from markdownify import ATX, MarkdownConverter

from oraculum.capture.redact import safe_url

DROPPED_TAGS = ("button", "svg", "iframe", "form", "script", "style", "input", "textarea")
_LANGUAGE_RE = re.compile(r"(?:^|\s)(?:language|lang)-([\w+#.-]+)")
_BACKTICK_RUN_RE = re.compile(r"`+")


def code_language(element: Tag) -> str:
    """The `language-<x>` of a `pre` or its `code` child, else ''."""
    for candidate in (element, element.find("code")):
        if isinstance(candidate, Tag):
            joined = " ".join(candidate.get_attribute_list("class"))
            match = _LANGUAGE_RE.search(joined)
            if match:
                return match.group(1)
    return ""


def fence_for(code: str) -> str:
    longest = max((len(run) for run in _BACKTICK_RUN_RE.findall(code)), default=0)
    return "`" * max(3, longest + 1)


def fenced(code: str, language: str) -> str:
    fence = fence_for(code)
    body = code if code.endswith("\n") else code + "\n"
    return f"{fence}{language}\n{body}{fence}"


class _Converter(MarkdownConverter):
    def __init__(self, base_url: str | None, **options: Any) -> None:
        super().__init__(**options)
        self.base_url = base_url

    def convert_pre(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        code = el.get_text()
        if not code.strip():
            return ""
        return "\n\n" + fenced(code, code_language(el)) + "\n\n"

    def convert_a(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        href = safe_url(str(el.get("href") or ""), self.base_url)
        if href is None:
            return text
        el["href"] = href
        # markdownify's stub omits its convert_* methods, which exist at runtime.
        return str(super().convert_a(el, text, parent_tags))  # type: ignore[misc]

    def _cell(self, el: Tag, text: str) -> str:
        colspan = 1
        raw = str(el.get("colspan") or "")
        if raw.isdigit():
            colspan = max(1, min(1000, int(raw)))
        cell = text.strip().replace("|", "\\|")
        cell = re.sub(r"\s*\n\s*", "<br>", cell)
        return " " + cell + " |" * colspan

    def convert_td(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        return self._cell(el, text)

    def convert_th(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        return self._cell(el, text)


def prepare(html: str) -> BeautifulSoup:
    """The parsed HTML with controls dropped and presentation `pre` wrappers unwrapped."""
    soup = BeautifulSoup(html, "html.parser")
    for tag in soup.find_all(DROPPED_TAGS):
        tag.decompose()
    # Outermost first: each wrapper is replaced by the leaf `pre` elements inside it.
    for pre in soup.find_all("pre"):
        if pre.decomposed or pre.parent is None:
            continue
        leaves = [inner for inner in pre.find_all("pre") if inner.find("pre") is None]
        if leaves:
            for leaf in leaves:
                pre.insert_before(leaf.extract())
            pre.decompose()
    return soup


def html_to_markdown(html: str, base_url: str | None = None) -> str:
    """Markdown for a sanitized turn; '' when it has no text."""
    soup = prepare(html)
    converter = _Converter(
        base_url,
        heading_style=ATX,
        bullets="-",
        escape_underscores=False,
        escape_asterisks=True,
        strip_document="strip",
    )
    markdown = converter.convert_soup(soup)
    # Collapse runs of blank lines outside fences would risk touching code; markdownify already
    # emits at most two newlines between blocks, so only trim the ends.
    return markdown.strip()
