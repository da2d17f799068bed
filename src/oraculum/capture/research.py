"""Reading a Deep Research report from its widget: the frame, the widget state, the export.

The report lives in a sandboxed cross-origin iframe (`internal://deep-research`) whose
same-origin child frame holds the report and `window.openai`. Only Playwright's frame tree can
enter it, so the host page hands over the iframe element and Playwright reads inside. The
Export → "Export to Markdown" download is performed by the host page; it is observed there
(`research_export.js`) without changing the browser's download behaviour. Decisions about what
was read live in :mod:`oraculum.capture.deep_research`.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import re
import time
from dataclasses import dataclass
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page

from oraculum.capture.deep_research import (
    COMPLETED_PREFIX,
    ExportRead,
    RenderedReport,
    ReportChoice,
    WidgetState,
    choose_report,
    report_body,
)
from oraculum.capture.markdown import html_to_markdown
from oraculum.capture.page import script
from oraculum.core.errors import ErrorCode

__all__ = [
    "FrameReading",
    "ReportSources",
    "read_frame",
    "read_report",
    "report_frame",
    "widget_state",
]

FRAME_TITLE = "internal://deep-research"
MESSAGE_ID_ATTRIBUTES = ("data-message-id", "data-chatgpt-selection-message-id")
EXCHANGE_SELECTOR = '[data-turn-key], article, [data-testid^="conversation-turn"]'
REPORT_SELECTOR = '[data-testid="deep-research-report"]'
PILL_SELECTOR = ".citation-pill, [data-citation]"
DIAGRAM_SELECTOR = "figure.mermaid-diagram, figure:has(svg[role=img])"
STATUS_SELECTOR = '[role="status"]'
DIAGRAM_PLACEHOLDER = "[Diagram: rendered without its source]"
EXPORT_LABEL = "Export"
EXPORT_ITEM = re.compile(r"^\s*(?:Export to )?Markdown(?:\s*\([^)]*\))?\s*$", re.I)
MENU_POLLS, MENU_POLL_S = 50, 0.1
DOWNLOAD_POLLS, DOWNLOAD_POLL_S = 50, 0.1
MAX_EXPORT_BYTES = 25 * 1024 * 1024
UNREADABLE = ErrorCode.DEEP_RESEARCH_WIDGET_UNREADABLE  # the error code, named in the capture gap


async def report_frame(page: Page, message_id: str | None) -> Frame | None:
    """The report frame (the widget's child) of ``message_id``'s exchange; None when absent."""
    try:
        handle = await page.evaluate_handle(
            script("research_frame.js"),
            {
                "messageId": message_id,
                "messageIdAttributes": list(MESSAGE_ID_ATTRIBUTES),
                "frameTitle": FRAME_TITLE,
                "exchangeSelector": EXCHANGE_SELECTOR,
            },
        )
        element = handle.as_element()
        sandbox = await element.content_frame() if element else None
    except PlaywrightError:
        return None
    if sandbox is None:
        return None
    # The sandbox frame's same-origin child holds the report; a widget without one is read
    # directly.
    return sandbox.child_frames[0] if sandbox.child_frames else sandbox


@dataclass(frozen=True)
class FrameReading:
    text: str
    completed: bool
    status_text: str | None
    widget_state: dict[str, Any] | None
    rendered: dict[str, Any] | None


async def read_frame(frame: Frame) -> FrameReading | None:
    request = {
        "reportSelector": REPORT_SELECTOR,
        "pillSelector": PILL_SELECTOR,
        "diagramSelector": DIAGRAM_SELECTOR,
        "statusSelector": STATUS_SELECTOR,
        "completedPrefix": COMPLETED_PREFIX,
        "diagramPlaceholder": DIAGRAM_PLACEHOLDER,
    }
    try:
        data = await frame.evaluate(script("research_report.js"), request)
    except PlaywrightError:
        return None
    return FrameReading(
        text=str(data.get("text") or ""),
        completed=bool(data.get("completed")),
        status_text=data.get("statusText"),
        widget_state=data.get("widgetState"),
        rendered=data.get("rendered"),
    )


def widget_state(state: dict[str, Any] | None) -> WidgetState | None:
    """The Apps SDK state's report: `report_message` as a message ({content: {parts}, metadata:
    {content_references}}) or as plain Markdown."""
    if not isinstance(state, dict):
        return None
    message = state.get("report_message")
    if isinstance(message, str):
        references = state.get("content_references")
        return WidgetState(message, references if isinstance(references, list) else [])
    if not isinstance(message, dict):
        return None
    parts = (message.get("content") or {}).get("parts") or []
    markdown = "".join(p for p in parts if isinstance(p, str))
    metadata = message.get("metadata") or {}
    references = metadata.get("content_references") or []
    if not markdown.strip():
        return None
    return WidgetState(markdown, references if isinstance(references, list) else [])


def rendered_report(reading: FrameReading, base_url: str | None) -> RenderedReport | None:
    if reading.rendered:
        text = html_to_markdown(str(reading.rendered.get("html") or ""), base_url)
        return RenderedReport(
            text=text,
            citation_pills=int(reading.rendered.get("pills") or 0),
            diagrams_without_source=int(reading.rendered.get("diagrams") or 0),
            title=reading.rendered.get("title"),
        )
    _, body = report_body(reading.text)
    return RenderedReport(text=body) if body else None


async def _export_menu_item(frame: Frame) -> Any:
    for _ in range(MENU_POLLS):
        items = frame.get_by_role("menuitem", name=EXPORT_ITEM)
        count = await items.count()
        visible = [items.nth(i) for i in range(count) if await items.nth(i).is_visible()]
        if len(visible) == 1:
            return visible[0]
        await asyncio.sleep(MENU_POLL_S)
    return None


async def read_export(page: Page, frame: Frame) -> ExportRead:
    """Export → "Export to Markdown", its bytes read from the host page's Blob."""
    export = frame.get_by_role("button", name=EXPORT_LABEL, exact=True)
    if await export.count() == 0:
        return ExportRead(None, reason="the report has no Export control")
    observer = script("research_export.js")
    await page.evaluate(observer, {"op": "arm", "maxBytes": MAX_EXPORT_BYTES})
    try:
        await export.first.click()
        item = await _export_menu_item(frame)
        if item is None:
            return ExportRead(None, reason='no single "Export to Markdown" menu item appeared')
        await item.click()
        return await _downloaded(page, observer)
    finally:
        with contextlib.suppress(PlaywrightError):
            await page.evaluate(observer, {"op": "disarm", "maxBytes": MAX_EXPORT_BYTES})


async def _downloaded(page: Page, observer: str) -> ExportRead:
    last: dict[str, Any] = {}
    deadline = time.monotonic() + DOWNLOAD_POLLS * DOWNLOAD_POLL_S
    while time.monotonic() < deadline:
        last = await page.evaluate(observer, {"op": "read", "maxBytes": MAX_EXPORT_BYTES})
        if last.get("ok"):
            return ExportRead(base64.b64decode(last["base64"]), name=last.get("name"))
        if last.get("error") != "nothing_yet":
            break
        await asyncio.sleep(DOWNLOAD_POLL_S)
    reason = last.get("message") or "the export produced no download in the host page"
    return ExportRead(None, reason=str(reason))


@dataclass(frozen=True)
class ReportSources:
    """What the widget gave, and the report chosen from it (None: no source had a report)."""

    choice: ReportChoice | None
    export: ExportRead | None
    completed_label: str | None
    error: str | None = None


async def read_report(
    page: Page, message_id: str | None, *, base_url: str | None, export: bool = True
) -> ReportSources:
    """Every source of the bound turn's report, then the choice among them."""
    frame = await report_frame(page, message_id)
    reading = await read_frame(frame) if frame else None
    if frame is None or reading is None:
        return ReportSources(None, None, None, error=f"{UNREADABLE}: no readable research widget")
    label, _ = report_body(reading.text)
    exported: ExportRead | None = None
    if export:
        try:
            exported = await read_export(page, frame)
        except PlaywrightError as exc:
            exported = ExportRead(None, reason=f"export failed: {str(exc).splitlines()[0]}")
    choice = choose_report(
        exported, widget_state(reading.widget_state), rendered_report(reading, base_url)
    )
    return ReportSources(choice, exported, label)
