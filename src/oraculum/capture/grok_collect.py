"""Collection for a provider with its own capture root (Grok): the same order and files as
`collect.collect`, with the page read by the provider's capture function instead of
capture.js (which reads ChatGPT's shapes).

1. capture the reply bound through the user message that shows the job's archive (the
   conversation is checked in the same evaluation; another conversation is reopened, boundedly);
2. persist the binding (conversation, response index, message id, text hash) before anything
   else; 3. write response.md and its evidence exactly as ChatGPT's collection does.

`recollect_with` reacquires a saved binding's exact reply (by its message id, else through the
archive's user message at the saved index) and never guesses one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

from playwright.async_api import Page

from oraculum.capture.binding import Binding, BindingRefused, resolve_capture
from oraculum.capture.collect import (
    MAX_CAPTURE_ATTEMPTS,
    RENDER_RETRY_DELAY_S,
    CaptureFailed,
    CollectionResult,
    Persist,
    Reopen,
    failed_result,
    finalise,
    initial_binding,
)
from oraculum.capture.page import CaptureRequest, TurnCapture
from oraculum.capture.redact import safe_url
from oraculum.core.config import Config
from oraculum.jobs.model import Job
from oraculum.jobs.store import JobPaths

CaptureFn = Callable[[CaptureRequest], Awaitable[TurnCapture]]

_RENDERING = ("bound_root_absent", "bound_message_absent", "archive_turn_absent")


def _judged_sources(capture: TurnCapture) -> TurnCapture:
    """The page's links as sources: a safe URL, or flagged unresolved (never returned)."""
    sources = []
    for raw in capture.sources:
        source = {k: v for k, v in raw.items() if k != "href"}
        url = safe_url(raw.get("href"), capture.url)
        if url:
            source["url"] = url
        else:
            source["unresolved"] = True
        sources.append(source)
    return replace(capture, sources=sources)


async def _bound_capture_with(
    capture_fn: CaptureFn,
    binding: Binding,
    reopen: Reopen,
    *,
    archive_name: str | None,
    anchored: bool,
    attempts: int = MAX_CAPTURE_ATTEMPTS,
) -> tuple[TurnCapture, Binding]:
    """`collect.bound_capture`'s rules with the provider's capture function."""
    request = CaptureRequest(
        response_index=binding.response_index,
        expect_conversation_id=binding.conversation_id,
        message_id=binding.message_id,
        archive_name=archive_name,
        bind_by_archive=anchored and archive_name is not None and not binding.message_id,
    )
    last: TurnCapture | None = None
    for attempt in range(attempts):
        last = await capture_fn(request)
        if last.ok:
            try:
                resolved = resolve_capture(
                    binding, last, archive_name=archive_name, anchored=anchored
                )
            except BindingRefused as refused:
                raise CaptureFailed(refused.code, refused.message, binding) from None
            return _judged_sources(last), resolved
        more = attempt + 1 < attempts
        if last.error in ("conversation_mismatch", "evaluation_failed"):
            if more:
                await reopen()
            continue
        if last.error in _RENDERING and more:
            await asyncio.sleep(RENDER_RETRY_DELAY_S * (attempt + 1))
            continue
        break
    assert last is not None
    raise CaptureFailed(last.error or "capture_failed", last.message or "Capture failed.", binding)


async def collect_with(
    capture_fn: CaptureFn,
    page: Page,
    job: Job,
    paths: JobPaths,
    config: Config,
    *,
    response_index: int,
    reopen: Reopen,
    persist: Persist,
) -> CollectionResult:
    """Collect the reply that follows the user message showing the job's archive."""
    binding = initial_binding(job, response_index)
    if binding is None:
        return failed_result(
            job,
            paths,
            CaptureFailed("conversation_unknown", "The job has no conversation to bind to."),
            recollecting=False,
        )
    await persist({"collection_binding": binding.to_json_dict()})
    try:
        capture, binding = await _bound_capture_with(
            capture_fn, binding, reopen, archive_name=Path(job.archive_path).name, anchored=True
        )
    except CaptureFailed as error:
        return failed_result(job, paths, error, recollecting=False)
    await persist({"collection_binding": binding.to_json_dict()})
    return await finalise(page, capture, binding, paths, config)


async def recollect_with(
    capture_fn: CaptureFn,
    page: Page,
    job: Job,
    paths: JobPaths,
    config: Config,
    *,
    reopen: Reopen,
    persist: Persist,
) -> CollectionResult:
    """`collect.recollect`'s rules with the provider's capture function."""
    binding = Binding.from_json(job.collection_binding)
    if binding is None:
        missing = CaptureFailed(
            "recollect_binding_missing",
            "The job has no saved collection binding; recollection needs the observed "
            "responseIndex and messageId.",
        )
        return failed_result(job, paths, missing, recollecting=True)
    archive_name = None if binding.message_id else Path(job.archive_path).name
    try:
        capture, resolved = await _bound_capture_with(
            capture_fn, binding, reopen, archive_name=archive_name, anchored=False
        )
    except CaptureFailed as error:
        return failed_result(job, paths, error, recollecting=True)
    await persist({"collection_binding": resolved.to_json_dict()})
    return await finalise(page, capture, resolved, paths, config)
