"""The fetch family: `browser_fetch`, a rendered, read-only fetch of a public page
(docs/fetch.md).

At most four fetches run at once per session, waited-for and background ones together. With
``background: true`` the call returns at once with a task id; the page (or why there is none)
arrives later as exactly one notice through the shared background-task path
(:mod:`oraculum.tasks`), delivered by the same wake-up machinery as oracle jobs. When the
session's server stops, its background fetches are cancelled (each closes its Chromium).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field, with_config

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.mcp.render import Outcome, outcome
from oraculum.mcp.schemas import UNTITLED, Common, arg, hints
from oraculum.mcp.state import OracleMcp, run_operation
from oraculum.mcp.toolkit import ToolSpec
from oraculum.tasks import BackgroundTasks, Owner, TaskResult

if TYPE_CHECKING:
    from oraculum.fetch.service import FetchResult

__all__ = [
    "FAMILY",
    "MAX_CONCURRENT",
    "TOOLS",
    "FetchOutput",
    "FetchSlots",
    "browser_fetch",
    "fetched_outcome",
    "shutdown",
    "started_outcome",
]

FAMILY = "fetch"
MAX_CONCURRENT = 4
CANCEL_JOIN_S = 10.0  # a cancelled fetch closes its browser within a second or two


@with_config(UNTITLED)
class FetchOutput(Common, total=False):
    url: str
    finalUrl: Annotated[str, Field(description="Where the page ended up after redirects.")]
    status: int | None
    title: str
    markdown: Annotated[str, Field(description="The page as Markdown (at most 60,000 chars).")]
    truncated: bool
    blocked: Annotated[
        list[dict[str, Any]],
        Field(description="Non-public destinations the page pointed at, refused."),
    ]
    taskId: Annotated[str, Field(description="background: the task whose notice will come.")]
    background: bool


class FetchSlots:
    """At most ``limit`` fetches at once per owner, waited-for and background together."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._held: dict[Owner, int] = {}

    def take(self, owner: Owner) -> None:
        """Take a slot, or refuse with ``fetch_busy``."""
        with self._lock:
            held = self._held.get(owner, 0)
            if held >= self.limit:
                raise OracleError(
                    ErrorCode.FETCH_BUSY,
                    f"This session already runs {held} fetches (at most {self.limit} at once).",
                    suggested_next_step="Wait for one to finish, then retry.",
                    details={"limit": self.limit, "running": held},
                )
            self._held[owner] = held + 1

    def give_back(self, owner: Owner) -> None:
        with self._lock:
            left = self._held.get(owner, 0) - 1
            if left > 0:
                self._held[owner] = left
            else:
                self._held.pop(owner, None)

    @contextmanager
    def held(self, owner: Owner) -> Iterator[None]:
        self.take(owner)
        try:
            yield
        finally:
            self.give_back(owner)


SLOTS = FetchSlots(MAX_CONCURRENT)
BACKGROUND = BackgroundTasks("fetch", MAX_CONCURRENT)


def fetched_outcome(result: FetchResult) -> Outcome:
    text = result.text("mcp")
    return outcome(text.splitlines()[0], result.to_json(), text=text)


def started_outcome(task_id: str, url: str) -> Outcome:
    return outcome(
        f"browser_fetch {task_id} started for {url}.",
        {"taskId": task_id, "url": url, "background": True},
        next_step="Its page (or why there is none) arrives once, in a later tool result; do "
        "not wait or poll for it.",
    )


def _task_result(result: FetchResult) -> TaskResult:
    data = {key: value for key, value in result.to_json().items() if key != "markdown"}
    title = f"browser_fetch: {result.title or result.final_url}"
    return TaskResult(True, title[:300], result.text("mcp"), data)


def _start_background(owner: Owner, url: str) -> str:
    from oraculum.fetch.service import fetch

    SLOTS.take(owner)

    def work(cancel: threading.Event) -> TaskResult:
        try:
            return _task_result(fetch(url, cancel=cancel))
        finally:
            SLOTS.give_back(owner)

    try:
        return BACKGROUND.start(owner, f"browser_fetch {url}"[:300], work)
    except BaseException:
        SLOTS.give_back(owner)
        raise


async def browser_fetch(
    ctx: Context,
    url: Annotated[str, arg("URL", "An http:// or https:// URL of a public page.")],
    background: Annotated[
        bool,
        arg(
            "Background",
            "Return at once; the page arrives later as one notice in a later tool result.",
        ),
    ] = False,
) -> Annotated[CallToolResult, FetchOutput]:
    """Read a public web page rendered by a fresh headless browser, as Markdown (title, final
    URL, status; at most 60,000 characters). Read-only; non-public addresses are never reached
    and sign-in, CAPTCHA and anti-bot pages are reported, not bypassed. At most four at once per
    session; start independent fetches together with background: true."""

    def call(state: OracleMcp) -> Outcome:
        from oraculum.fetch.service import check_url, fetch

        check_url(url)  # a bad URL is refused now, not in a later notice
        owner = Owner(state.project_id, state.session_id)
        if background:
            return started_outcome(_start_background(owner, url), url)
        with SLOTS.held(owner):
            return fetched_outcome(fetch(url))

    return await run_operation(ctx, "browser_fetch", call)


def shutdown(state: OracleMcp) -> None:
    """The session's server stops: cancel its background fetches (each posts its notice)."""
    BACKGROUND.cancel_owner(Owner(state.project_id, state.session_id), join_s=CANCEL_JOIN_S)


TOOLS = (
    ToolSpec(
        browser_fetch,
        "Fetch a public web page",
        hints(read_only=True, destructive=False, idempotent=True, open_world=True),
    ),
)
