"""What a rendered page says, read without a browser: its verdict and its bounded Markdown.

Pure functions over what :mod:`oraculum.fetch.render` took from the page. A page that asks for
a sign-in, a CAPTCHA or another anti-bot check is reported as such (never worked around); a page
with too little text to read is reported as unreadable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from markdownify import markdownify

__all__ = [
    "EXTRACT_JS",
    "MAX_HTML_CHARS",
    "MAX_MARKDOWN_CHARS",
    "MAX_TEXT_CHARS",
    "MAX_TITLE_CHARS",
    "MIN_READABLE_CHARS",
    "Snapshot",
    "Verdict",
    "bounded",
    "judge",
    "page_markdown",
]

MAX_MARKDOWN_CHARS = 60_000  # what a tool result carries; the rest is cut, and said to be
MAX_HTML_CHARS = 2_000_000  # HTML taken from the page for conversion
MAX_TEXT_CHARS = 200_000  # visible text taken from the page for judging
MAX_TITLE_CHARS = 500
MIN_READABLE_CHARS = 120  # less visible text than this is an unreadable page

# One evaluation: the title, the body's visible text and the body's HTML without what never
# reads as content (scripts, styles, templates, inline SVG).
EXTRACT_JS = """(limits) => {
  const body = document.body ? document.body.cloneNode(true) : null;
  if (body) {
    body.querySelectorAll('script,style,noscript,template,svg,canvas')
      .forEach((node) => node.remove());
  }
  return {
    title: (document.title || '').slice(0, limits.title),
    text: (document.body ? document.body.innerText : '').slice(0, limits.text),
    html: (body ? body.innerHTML : '').slice(0, limits.html),
    passwordFields: document.querySelectorAll('input[type=password]').length,
  };
}"""

_CHALLENGE = re.compile(
    r"captcha|verify (?:that )?you are (?:a )?human|are you a robot|unusual traffic"
    r"|checking (?:if the site connection is secure|your browser)|just a moment\.\.\."
    r"|access denied|enable (?:javascript and )?cookies|attention required"
    r"|press (?:&|and) hold|bot detection|ddos protection",
    re.IGNORECASE,
)
_LOGIN = re.compile(
    r"sign in to (?:continue|view|see)|log ?in to (?:continue|view|see)"
    r"|please (?:sign|log) ?in|you must (?:be )?(?:signed|logged) ?in|login required",
    re.IGNORECASE,
)
_BLOCKING_STATUS = {401: "login", 403: "anti_bot", 407: "login", 429: "anti_bot"}
_SHORT_PAGE_CHARS = 2_000  # a login form decides the page only when little else is on it


@dataclass(frozen=True)
class Snapshot:
    """What the browser read from the page."""

    title: str
    text: str
    html: str
    password_fields: int = 0


@dataclass(frozen=True)
class Verdict:
    """``kind`` is ``ok``, ``captcha``, ``anti_bot``, ``login``, ``http_error`` or
    ``unreadable``; ``reason`` says what decided it."""

    kind: str
    reason: str

    @property
    def ok(self) -> bool:
        return self.kind == "ok"


def judge(snapshot: Snapshot, status: int | None, final_url: str) -> Verdict:
    """Blocked (sign-in, CAPTCHA, anti-bot) first, then HTTP errors, then unreadable."""
    text = f"{snapshot.title}\n{snapshot.text}"
    query = parse_qs(urlsplit(final_url).query)
    if "js_challenge" in query or "__cf_chl_tk" in query:
        return Verdict("anti_bot", "the address is an anti-bot challenge")
    if status in _BLOCKING_STATUS:
        return Verdict(_BLOCKING_STATUS[status], f"HTTP {status}")
    found = _CHALLENGE.search(text)
    if found and len(snapshot.text) < _SHORT_PAGE_CHARS * 5:
        kind = "captcha" if "captcha" in found.group(0).lower() else "anti_bot"
        return Verdict(kind, f"the page says {found.group(0)!r}")
    found = _LOGIN.search(text)
    if found or (snapshot.password_fields and len(snapshot.text) < _SHORT_PAGE_CHARS):
        said = f"the page says {found.group(0)!r}" if found else "the page is a sign-in form"
        return Verdict("login", said)
    if status is not None and status >= 400:
        return Verdict("http_error", f"HTTP {status}")
    if len(snapshot.text.strip()) < MIN_READABLE_CHARS:
        return Verdict("unreadable", f"fewer than {MIN_READABLE_CHARS} readable characters")
    return Verdict("ok", "readable")


def page_markdown(snapshot: Snapshot) -> str:
    """The page's HTML as Markdown, blank runs collapsed."""
    converted = markdownify(snapshot.html, heading_style="ATX", strip=["img"])
    lines = [line.rstrip() for line in converted.splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def bounded(markdown: str, limit: int = MAX_MARKDOWN_CHARS) -> tuple[str, bool]:
    """``markdown`` cut to ``limit`` characters at a line end where one is near; and whether
    anything was cut."""
    if len(markdown) <= limit:
        return markdown, False
    cut = markdown.rfind("\n", max(0, limit - 2_000), limit)
    return markdown[: cut if cut > 0 else limit].rstrip(), True
