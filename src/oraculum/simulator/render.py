"""Markdown to HTML the way each site's web app renders an answer.

markdown-it-py (already installed with rich) parses; a few rules are replaced so the output has
the site's shape. ChatGPT: the `markdown prose` wrapper, links opening in a new tab, tables
inside their scroll wrappers, and fenced code inside a presentation `<pre>` that holds a header
(language label, "Copy code" button) and the leaf `<pre><code class="language-x">` with the exact
code. Grok: no wrapper (the page's `.response-content-markdown` holds it), tables in a plain
container, and each fence one `<pre><code>` after a header with its language and "Copy code".
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any, cast

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict


def _fence(
    tokens: list[Token], idx: int, options: OptionsDict, env: EnvType, renderer: Any = None
) -> str:
    token = tokens[idx]
    lang = token.info.strip().split(" ")[0] if token.info else ""
    code_class = f' class="whitespace-pre! language-{escape(lang)}"' if lang else ""
    label = escape(lang) if lang else "plaintext"
    # The outer <pre> is presentation only; a driver must take the leaf <pre> so code blocks
    # are not counted twice (facts §2.3).
    return (
        '<pre class="overflow-visible!">'
        '<div class="contain-inline-size rounded-2xl relative bg-token-sidebar-surface-primary">'
        '<div class="code-header flex items-center justify-between" aria-hidden="true">'
        f"<span>{label}</span></div>"
        '<div class="code-actions"><button class="copy-code" aria-label="Copy code"'
        ' type="button"></button></div>'
        f'<div class="overflow-y-auto p-4" dir="ltr"><pre><code{code_class}>'
        f"{escape(token.content)}</code></pre></div></div></pre>"
    )


def _grok_fence(
    tokens: list[Token], idx: int, options: OptionsDict, env: EnvType, renderer: Any = None
) -> str:
    token = tokens[idx]
    lang = token.info.strip().split(" ")[0] if token.info else ""
    code_class = f' class="language-{escape(lang)}"' if lang else ""
    # The language label sits beside the <pre>, never in it: a capture must take the code only.
    return (
        '<div class="not-prose code-block" data-testid="code-block">'
        f'<div class="code-header"><span class="code-language">{escape(lang or "text")}</span>'
        '<button class="copy-code" aria-label="Copy code" type="button"></button></div>'
        f"<pre><code{code_class}>{escape(token.content)}</code></pre></div>"
    )


def _gemini_fence(
    tokens: list[Token], idx: int, options: OptionsDict, env: EnvType, renderer: Any = None
) -> str:
    token = tokens[idx]
    lang = token.info.strip().split(" ")[0] if token.info else ""
    code_class = f' class="code-container formatted language-{escape(lang)}"' if lang else ""
    # Gemini's <code-block>: a decoration header (language, its own copy button), then the code.
    return (
        '<code-block class="ng-star-inserted"><div class="code-block">'
        f'<div class="code-block-decoration"><span>{escape(lang or "Code")}</span>'
        '<button class="copy-code" aria-label="Copy code" type="button"></button></div>'
        f"<pre><code{code_class}>{escape(token.content)}</code></pre></div></code-block>"
    )


def _grok_table_open(*_: Any) -> str:
    return '<div class="table-container"><table>'


def _link_open(
    tokens: list[Token], idx: int, options: OptionsDict, env: EnvType, renderer: Any = None
) -> str:
    token = tokens[idx]
    href = escape(str(token.attrGet("href") or ""), quote=True)
    return f'<a class="decorated-link" href="{href}" target="_blank" rel="noopener">'


def _table_open(*_: Any) -> str:
    return (
        '<div class="_tableContainer_1rjym_1"><div tabindex="-1" class="_tableWrapper_1rjym_13'
        ' group flex w-fit flex-col-reverse"><table class="w-fit min-w-(--thread-content-width)">'
    )


def _table_close(*_: Any) -> str:
    return "</table></div></div>"


def _make_parser(fence: Any, table_open: Any) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
    renderer = md.renderer
    assert isinstance(renderer, RendererHTML)
    # markdown-it annotates its rules as bound methods, yet calls each one as
    # rule(tokens, idx, options, env): plain functions serve (add_render_rule would bind them).
    rules = cast("dict[str, Callable[..., str]]", renderer.rules)
    rules["fence"] = fence
    rules["code_block"] = fence
    rules["link_open"] = _link_open
    rules["table_open"] = table_open
    rules["table_close"] = _table_close
    return md


# Parser per site (`SimState.provider`).
_MD = {
    "chatgpt": _make_parser(_fence, _table_open),
    "grok": _make_parser(_grok_fence, _grok_table_open),
    "gemini": _make_parser(_gemini_fence, _grok_table_open),
}


def markdown_html(markdown: str, site: str = "chatgpt") -> str:
    """Rendered body HTML (no outer wrapper); whitespace between block tags is dropped so the
    page's text nodes are exactly the answer's text."""
    html = _MD[site].render(markdown)
    return html.replace(">\n<", "><").strip()


def wrap_markdown(inner_html: str, site: str = "chatgpt") -> str:
    if site in ("grok", "gemini"):  # the page's own container holds the answer
        return inner_html
    return (
        f'<div class="markdown prose dark:prose-invert w-full break-words light">{inner_html}</div>'
    )
