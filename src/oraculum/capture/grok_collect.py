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

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Concatenate, ParamSpec

from oraculum.capture.collect import (
    CaptureFn,
    CollectionResult,
    collect,
    recollect,
)
from oraculum.capture.page import CaptureRequest, TurnCapture
from oraculum.capture.redact import safe_url

P = ParamSpec("P")


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


def _judging(capture_fn: CaptureFn) -> CaptureFn:
    async def capture(request: CaptureRequest) -> TurnCapture:
        read = await capture_fn(request)
        return _judged_sources(read) if read.ok else read

    return capture


def _judged(
    entry: Callable[P, Awaitable[CollectionResult]],
) -> Callable[Concatenate[CaptureFn, P], Awaitable[CollectionResult]]:
    """``entry`` (`collect.collect` or `collect.recollect`) with the provider's capture function
    as its first argument, its links judged here; every other argument is ``entry``'s own."""

    async def run(capture_fn: CaptureFn, /, *args: P.args, **kwargs: P.kwargs) -> CollectionResult:
        kwargs["capture_fn"] = _judging(capture_fn)
        return await entry(*args, **kwargs)

    return run


collect_with = _judged(collect)
recollect_with = _judged(recollect)
