"""Evaluating the in-page capture (capture.js) and turning its answer into typed records."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from oraculum.core.providers import CONVERSATION_PATH

_CHATGPT_HEADING = "ChatGPT said:"
_USER_HEADING = "You said:"


# A page script names each shared script it uses on a line of its own, before its function:
#   // @use captureRules = oraculum.capture:capture_rules.js
# The shared script is one expression; the script sees it as a constant of that name.
_USE = re.compile(r"^// @use (\w+) = ([\w.]+):([\w./-]+)$", re.MULTILINE)


@cache
def packaged_script(package: str, relative: str) -> str:
    """A script shipped inside ``package`` (e.g. ``js/observe.js``) as evaluable text, with the
    shared scripts its ``// @use`` lines name bound around it: the whole evaluates to the
    script's function, which Playwright then calls with the argument."""
    text = resources.files(package).joinpath(relative).read_text(encoding="utf-8")
    uses = _USE.findall(text)
    if not uses:
        return text
    shared = "".join(
        f"const {name} = (\n{packaged_script(pkg, rel)}\n);\n" for name, pkg, rel in uses
    )
    return f"// {relative} and the scripts it uses\n(() => {{\n{shared}return (\n{text}\n);\n}})()"


def script(name: str) -> str:
    """A packaged page script (capture.js, download.js) as evaluable text."""
    return packaged_script("oraculum.capture", name)


def turn_sha256(normalized_text: str) -> str:
    """The positional binding's content hash: the turn's whitespace-normalised text.

    Text, not HTML: ChatGPT re-renders the same turn with different class attributes."""
    return hashlib.sha256(normalized_text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class TurnVocabulary:
    """A provider's words for what its assistant turn holds besides the answer (regular
    expressions match an element's whole, whitespace-collapsed text, ignoring case). The
    provider's vocabulary module fills it; without one, only controls count as chrome and
    no comparison is recognised."""

    chrome_selectors: tuple[str, ...] = ("button", '[role="button"]')
    chrome_patterns: tuple[str, ...] = ()
    comparison_questions: tuple[str, ...] = ()
    comparison_choices: tuple[str, ...] = ()
    candidate_labels: tuple[str, ...] = ()

    def to_js(self) -> dict[str, list[str]]:
        return {
            "chromeSelectors": list(self.chrome_selectors),
            "chromePatterns": list(self.chrome_patterns),
            "comparisonQuestions": list(self.comparison_questions),
            "comparisonChoices": list(self.comparison_choices),
            "candidateLabels": list(self.candidate_labels),
        }


@dataclass(frozen=True)
class CaptureRequest:
    response_index: int
    expect_conversation_id: str | None = None
    message_id: str | None = None
    archive_name: str | None = None
    bind_by_archive: bool = False  # the bound turn is the first reply after the archive's turn
    heading_text: str = _CHATGPT_HEADING
    user_heading_text: str = _USER_HEADING
    turn: TurnVocabulary = field(default_factory=TurnVocabulary)

    def to_js(self, mode: str = "capture") -> dict[str, Any]:
        return {
            "mode": mode,
            "responseIndex": self.response_index,
            "expectConversationId": self.expect_conversation_id,
            "messageId": self.message_id,
            "archiveName": self.archive_name,
            "conversationPattern": CONVERSATION_PATH.pattern,
            "bindByArchive": self.bind_by_archive,
            "headingText": self.heading_text,
            "userHeadingText": self.user_heading_text,
            "turn": self.turn.to_js(),
        }


@dataclass(frozen=True)
class CodeBlock:
    index: int  # 1-based, as in response.block-<n>.txt
    language: str
    text: str


@dataclass(frozen=True)
class Candidate:
    candidate_id: str
    selector: str
    label: str
    file_name: str | None
    reasons: list[str]
    href_kind: str
    safe_href: str | None


def _code_blocks(data: dict[str, Any]) -> list[CodeBlock]:
    return [
        CodeBlock(int(b["index"]), str(b.get("language") or ""), str(b.get("text") or ""))
        for b in data.get("codeBlocks") or []
    ]


@dataclass(frozen=True)
class Reply:
    """One reply's content as capture.js read it: the bound turn's, or one compared
    candidate's. ``chrome``: what the app put in it that is not the answer ({kind, text})."""

    raw_text: str = ""
    raw_html: str = ""
    code_blocks: list[CodeBlock] = field(default_factory=list)
    sources: list[dict[str, Any]] = field(default_factory=list)
    chrome: list[dict[str, str]] = field(default_factory=list)
    message_id: str | None = None
    label: str | None = None

    @classmethod
    def from_js(cls, data: dict[str, Any]) -> Reply:
        return cls(
            raw_text=str(data.get("rawText") or ""),
            raw_html=str(data.get("rawHtml") or ""),
            code_blocks=_code_blocks(data),
            sources=list(data.get("sources") or []),
            chrome=list(data.get("chrome") or []),
            message_id=data.get("messageId"),
            label=data.get("label"),
        )


@dataclass(frozen=True)
class Comparison:
    """A turn showing several candidate replies and asking which one is preferred."""

    question: str | None
    replies: list[Reply]

    @classmethod
    def from_js(cls, data: dict[str, Any] | None) -> Comparison | None:
        if not data:
            return None
        return cls(data.get("question"), [Reply.from_js(r) for r in data.get("replies") or []])


@dataclass(frozen=True)
class TurnCapture:
    """What capture.js read from one page; ``ok`` False carries ``error`` and ``message``."""

    ok: bool
    url: str
    conversation_id: str | None
    error: str | None = None
    message: str | None = None
    root_count: int = 0
    response_index: int | None = None
    message_id: str | None = None
    raw_text: str = ""
    normalized_text: str = ""
    raw_html: str = ""
    title: str | None = None
    code_blocks: list[CodeBlock] = field(default_factory=list)
    sources: list[dict[str, Any]] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    frames: list[dict[str, Any]] = field(default_factory=list)
    reasoning_label: str | None = None
    archive_anchor: dict[str, Any] | None = None
    chrome: list[dict[str, str]] = field(default_factory=list)
    comparison: Comparison | None = None

    @property
    def reply(self) -> Reply:
        """The bound reply's content (a comparison's first candidate)."""
        return Reply(
            self.raw_text,
            self.raw_html,
            self.code_blocks,
            self.sources,
            self.chrome,
            self.message_id,
        )

    @property
    def turn_sha256(self) -> str:
        return turn_sha256(self.normalized_text)

    @classmethod
    def from_js(cls, data: dict[str, Any]) -> TurnCapture:
        return cls(
            ok=bool(data.get("ok")),
            url=str(data.get("url") or ""),
            conversation_id=data.get("conversationId"),
            error=data.get("error"),
            message=data.get("message"),
            root_count=int(data.get("rootCount") or 0),
            response_index=data.get("responseIndex"),
            message_id=data.get("messageId"),
            raw_text=str(data.get("rawText") or ""),
            normalized_text=str(data.get("normalizedText") or ""),
            raw_html=str(data.get("rawHtml") or ""),
            title=data.get("title"),
            code_blocks=_code_blocks(data),
            sources=list(data.get("sources") or []),
            candidates=[
                Candidate(
                    candidate_id=str(c["candidateId"]),
                    selector=str(c["selector"]),
                    label=str(c.get("label") or ""),
                    file_name=c.get("fileName"),
                    reasons=list(c.get("reasons") or []),
                    href_kind=str(c.get("hrefKind") or "none"),
                    safe_href=c.get("safeHref"),
                )
                for c in data.get("candidates") or []
            ],
            frames=list(data.get("frames") or []),
            reasoning_label=data.get("reasoningLabel"),
            archive_anchor=data.get("archiveAnchor"),
            chrome=list(data.get("chrome") or []),
            comparison=Comparison.from_js(data.get("comparison")),
        )

    def candidate_dicts(self) -> list[dict[str, Any]]:
        return [asdict(c) for c in self.candidates]


# One read of the bound turn: capture.js (`capture_turn`) or a provider's own capture.
CaptureFn = Callable[[CaptureRequest], Awaitable[TurnCapture]]


async def capture_turn(page: Page, request: CaptureRequest) -> TurnCapture:
    """Run capture.js once in ``page``'s main frame."""
    try:
        data = await page.evaluate(script("capture.js"), request.to_js())
    except PlaywrightError as exc:
        # A navigation mid-evaluation destroys the context: report it like any failed read.
        return TurnCapture(
            ok=False,
            url=page.url,
            conversation_id=None,
            error="evaluation_failed",
            message=str(exc).splitlines()[0],
        )
    return TurnCapture.from_js(data)


async def assistant_turns(page: Page) -> dict[str, Any]:
    """{conversationId, count, messageIds}: the assistant turn roots as capture.js sees them.

    The driver records ``count - 1`` as the responseIndex of the turn it just waited for."""
    data: dict[str, Any] = await page.evaluate(
        script("capture.js"), CaptureRequest(response_index=0).to_js("count")
    )
    return data
