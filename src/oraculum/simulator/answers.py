"""Answer templates: what the simulated model replies, as ChatGPT-rendered HTML.

Every template is deterministic in its inputs (prompt, uploads, model), so tests can predict the
text. `default` proves receipt of the uploads (members and sha256) and quotes the prompt;
`receipt` is the same without its links (nothing for collection to miss).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from html import escape
from html.parser import HTMLParser

from oraculum.simulator import artifacts
from oraculum.simulator.render import markdown_html, wrap_markdown
from oraculum.simulator.state import FileBlob, Selection, SimState, Upload, new_id

SAFE_LINK = "https://docs.python.org/3/library/tarfile.html"
SIGNED_LINK = (
    "https://files.simulator.invalid/export/receipt.json?sig=SIMULATED-SIGNATURE"
    "&se=2099-01-01T00%3A00%3A00Z"
)
MAX_LISTED_MEMBERS = 200
MAX_QUOTED_PROMPT = 4000


@dataclass
class Answer:
    html: str
    text: str
    files: list[str] = field(default_factory=list)


class _TextCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def html_text(html: str) -> str:
    """Concatenated text nodes, in document order: what the page reveals while streaming."""
    collector = _TextCollector()
    collector.feed(html)
    collector.close()
    return "".join(collector.parts)


def model_label(selection: Selection) -> str:
    if selection.family == "instant":
        return "Instant"
    return f"{selection.family.title()} · {selection.effort.title()}"


def format_duration(seconds: float) -> str:
    whole = max(1, round(seconds))
    minutes, secs = divmod(whole, 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours}h {minutes}m {secs}s"
    if minutes:
        return f"{minutes}m {secs}s"
    return f"{secs}s"


def reasoning_label(selection: Selection, think_s: float, override: str) -> str:
    """'Thought for 4s' (Thinking, and every Grok mode), 'Worked for 1m 7s' (Pro), none for
    Instant."""
    if override:
        return "" if override.lower() == "none" else override
    if selection.family == "pro":
        return f"Worked for {format_duration(think_s)}"
    if selection.family in ("thinking", "grok"):
        return f"Thought for {format_duration(think_s)}"
    return ""


def _quote(prompt: str) -> str:
    text = prompt if len(prompt) <= MAX_QUOTED_PROMPT else prompt[:MAX_QUOTED_PROMPT] + " …"
    lines = text.strip().splitlines() or [""]
    # Escape Markdown so the quote reads back as the prompt's own characters; two trailing
    # spaces keep each of the prompt's line breaks.
    return "\n".join("> " + _md_escape(line) + "  " if line.strip() else ">" for line in lines)


def _md_escape(text: str) -> str:
    out = []
    for char in text:
        if char in "\\`*_[]<>|#":
            out.append("\\" + char)
        else:
            out.append(char)
    return "".join(out)


def _receipt_markdown(
    prompt: str, uploads: list[Upload], selection: Selection, *, links: bool = True
) -> str:
    count = len(uploads)
    noun = "attachment" if count == 1 else "attachments"
    parts = [
        "### Upload receipt",
        f"Model: **{model_label(selection)}**. I received your message and {count} {noun}.",
        "Your prompt:",
        _quote(prompt),
    ]
    if uploads:
        rows = ["| File | Bytes | Members | SHA-256 |", "| --- | ---: | ---: | --- |"]
        for up in uploads:
            members = str(len(up.members)) if up.members is not None else "n/a"
            rows.append(f"| `{up.name}` | {up.size} | {members} | `{up.sha256}` |")
        parts.append("\n".join(rows))
    for up in uploads:
        if up.members is None:
            if up.archive_error:
                parts.append(f"`{up.name}` could not be read as an archive: {up.archive_error}")
            continue
        parts.append(f"#### Members of {_md_escape(up.name)}")
        listed = up.members[:MAX_LISTED_MEMBERS]
        items = [f"- `{m.name}` ({m.kind}, {m.size} bytes)" for m in listed]
        if len(up.members) > len(listed):
            items.append(f"- … and {len(up.members) - len(listed)} more")
        parts.append("\n".join(items) if items else "- (the archive is empty)")
    digest = {
        "attachments": [{"name": up.name, "bytes": up.size, "sha256": up.sha256} for up in uploads],
        "prompt_chars": len(prompt),
    }
    parts.append("```json\n" + json.dumps(digest, indent=2) + "\n```")
    if links:
        # A signed transport link collection must redact and cannot fetch: `default` exercises
        # that; `receipt` (the demo's answer) leaves it out so its collection is complete.
        parts.append(
            f"References: [tarfile documentation]({SAFE_LINK}) and "
            f"[signed receipt export]({SIGNED_LINK})."
        )
    return "\n\n".join(parts)


def _markdown_block(prompt: str, uploads: list[Upload], selection: Selection) -> str:
    inner = [
        "# Simulated answer",
        "",
        f"Model: **{model_label(selection)}**",
        "",
        "Your prompt began with:",
        "",
        _quote(prompt[:200]),
        "",
        "| File | SHA-256 |",
        "| --- | --- |",
        *[f"| {up.name} | {up.sha256} |" for up in uploads],
        "",
        "```python",
        "print('exact code survives')",
        "```",
        "",
        f"See [the docs]({SAFE_LINK}?case=synthetic&v=1#evidence).",
    ]
    body = "\n".join(inner)
    # The outer fence is longer than any backtick run inside, as a real renderer requires.
    return "````markdown\n" + body + "\n````"


def _tricky_markdown(prompt: str, selection: Selection) -> str:
    return "\n\n".join(
        [
            "### Incident review",
            f"Model: **{model_label(selection)}**.",
            "Your notes describe three symptoms, all of them ordinary content here:",
            "- Cloudflare served a *Just a moment…* page and asked users to verify you are "
            "human.\n- The API answered `429 Too many requests` once the rate limit of 100 "
            "requests per minute was hit.\n- The dashboard showed **Something went wrong** "
            "after a network error occurred.",
            "None of this is happening now; the answer finished normally.",
            "Prompt length: " + str(len(prompt)) + " characters.",
        ]
    )


def _register(state: SimState, name: str, content_type: str, data: bytes) -> FileBlob:
    blob = FileBlob(new_id().replace("-", "")[:20], name, content_type, data)
    state.files[blob.id] = blob
    return blob


def _file_set(state: SimState, prompt: str) -> list[tuple[FileBlob, bool]]:
    """(file, served as a blob: URL) for the downloadable-files templates."""
    return [
        (_register(state, "report.pdf", "application/pdf", artifacts.pdf_bytes()), False),
        (
            _register(
                state,
                "bundle.zip",
                "application/zip",
                artifacts.zip_bytes({"README.md": "# Bundle\n", "data.csv": "a,b\n1,2\n"}),
            ),
            False,
        ),
        (_register(state, "chart.png", "image/png", artifacts.png_bytes()), True),
        (
            _register(
                state,
                "notes.md",
                "text/markdown",
                f"# Notes\n\nPrompt length: {len(prompt)}\n".encode(),
            ),
            True,
        ),
        (
            _register(
                state, "report-draft.pdf", "application/pdf", artifacts.truncated_pdf_bytes()
            ),
            False,
        ),
        # Looks like a ZIP link; really an HTML error page (a collector must refuse it).
        (_register(state, "export.zip", "text/html", artifacts.HTML_ERROR_PAGE), False),
    ]


def _file_href(blob: FileBlob) -> str:
    return f"/files/{blob.id}/{blob.name}"


def _files_html(files: list[tuple[FileBlob, bool]]) -> str:
    items = []
    for blob, as_blob in files:
        href = escape(_file_href(blob), quote=True)
        name = escape(blob.name)
        blob_attr = ' data-sim-blob="1"' if as_blob else ""
        items.append(
            f'<li><a class="cursor-pointer" href="{href}" download="{name}"{blob_attr}>'
            f"{name}</a></li>"
        )
    return "<p>Here are the files you asked for:</p><ul>" + "".join(items) + "</ul>"


def _file_cards_html(files: list[tuple[FileBlob, bool]]) -> str:
    cards = []
    for blob, as_blob in files:
        href = escape(_file_href(blob), quote=True)
        name = escape(blob.name, quote=True)
        blob_attr = ' data-sim-blob="1"' if as_blob else ""
        # Icon-only cards: the turn has files but no text at all.
        cards.append(
            f'<div role="group" class="file-card" data-testid="file-card" title="{name}">'
            f'<a href="{href}" download="{name}" aria-label="Download {name}"{blob_attr}>'
            '<svg width="16" height="16" aria-hidden="true"><rect width="16" height="16"/></svg>'
            "</a></div>"
        )
    return '<div class="file-cards">' + "".join(cards) + "</div>"


def build(
    kind: str,
    *,
    state: SimState,
    prompt: str,
    uploads: list[Upload],
    selection: Selection,
) -> Answer:
    """The answer for one assistant turn."""
    files: list[tuple[FileBlob, bool]] = []
    site = state.provider  # each site renders Markdown its own way

    def rendered(markdown: str) -> str:
        return markdown_html(markdown, site)

    if kind == "default":
        html = rendered(_receipt_markdown(prompt, uploads, selection))
    elif kind == "receipt":
        html = rendered(_receipt_markdown(prompt, uploads, selection, links=False))
    elif kind == "markdown":
        html = rendered(_markdown_block(prompt, uploads, selection))
    elif kind == "tricky":
        html = rendered(_tricky_markdown(prompt, selection))
    elif kind == "echo":
        html = rendered("You said:\n\n" + _quote(prompt))
    elif kind == "files":
        files = _file_set(state, prompt)
        intro = rendered(f"Model: **{model_label(selection)}**. The files are ready.")
        html = intro + _files_html(files)
    elif kind == "files_only":
        files = _file_set(state, prompt)
        html = _file_cards_html(files)
    else:
        raise ValueError(f"unknown answer template {kind!r}")
    html = wrap_markdown(html, site)
    return Answer(html=html, text=html_text(html), files=[blob.id for blob, _ in files])


# turn_chrome: what the app itself puts inside an assistant turn around the answer (issue 37
# §6). The reasoning header and the memory notice are plain text in plain elements (only their
# words say what they are); the pill and the feedback controls are structure.
THOUGHT_HEADER = "Thought for 25s"
MEMORY_NOTICE = "Memory updated"
FEEDBACK_QUESTION = "Is this conversation helpful so far?"


def with_turn_chrome(answer: Answer) -> Answer:
    """``answer`` inside the chrome a turn may show: reasoning header and memory notice above,
    a Sources pill and a feedback question below."""
    above = (
        f'<div class="thought-header"><span>{THOUGHT_HEADER}</span></div>'
        f'<div class="memory-notice"><span>{MEMORY_NOTICE}</span>'
        '<button type="button" class="btn-link">Manage memories</button></div>'
    )
    below = (
        '<div class="sources-pill" role="button" tabindex="0"><span>Sources</span></div>'
        f'<div class="turn-feedback"><span>{FEEDBACK_QUESTION}</span>'
        '<button type="button" aria-label="Thumbs up">Yes</button>'
        '<button type="button" aria-label="Thumbs down">No</button></div>'
    )
    html = above + answer.html + below
    return Answer(html=html, text=html_text(html), files=answer.files)


# pause_ms: the answer's last word, so a test can tell the whole answer from the part streamed
# before the pause.
END_MARKER = "END-OF-ANSWER"


def with_ending(answer: Answer, site: str = "chatgpt") -> Answer:
    """``answer`` with a closing paragraph ending in `END_MARKER`, inside the site's wrapper."""
    _, close = wrap_markdown("\0", site).split("\0")
    html = (
        answer.html.removesuffix(close)
        + markdown_html(f"That is the whole answer: {END_MARKER}", site)
        + close
    )
    return Answer(html=html, text=html_text(html), files=answer.files)


# comparison_answer: the second candidate's opening line, so tests can tell the two apart.
ALTERNATIVE_HEADING = "Alternative answer"


def alternative(prompt: str, uploads: list[Upload], site: str = "chatgpt") -> Answer:
    """The second candidate of a comparison: a shorter answer to the same message."""
    names = ", ".join(f"`{up.name}`" for up in uploads) or "no attachments"
    return from_markdown(
        f"### {ALTERNATIVE_HEADING}\n\nIn short: I read {names}. "
        f"Your prompt has {len(prompt)} characters.",
        site,
    )


def from_markdown(markdown: str, site: str = "chatgpt") -> Answer:
    """A seeded answer given as Markdown."""
    html = wrap_markdown(markdown_html(markdown, site), site)
    return Answer(html=html, text=html_text(html))
