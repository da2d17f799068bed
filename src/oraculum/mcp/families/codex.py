"""The codex family: `codex_search`, difficult web research or image generation through the
``codex_search`` helper on PATH (docs/subagents.md).

A call returns at once with a task id; the answer (or the failure) arrives later as exactly one
notice through the shared background-task path (:mod:`oraculum.tasks`). At most four run at
once per session. Not durable: when the session's server stops, its searches are aborted.
"""

from __future__ import annotations

import threading
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field, with_config

from oraculum.mcp.render import Outcome, outcome
from oraculum.mcp.schemas import OUTWARD_HINTS, UNTITLED, Common, arg
from oraculum.mcp.state import OracleMcp, run_operation
from oraculum.mcp.toolkit import ToolSpec
from oraculum.tasks import BackgroundTasks, Owner, TaskResult

__all__ = ["FAMILY", "MAX_CONCURRENT", "TOOLS", "CodexOutput", "codex_search", "shutdown"]

FAMILY = "codex"
MAX_CONCURRENT = 4
CANCEL_JOIN_S = 10.0  # a cancelled search stops its process group within about a second

BACKGROUND = BackgroundTasks("codex_search", MAX_CONCURRENT)
_GROUPS_LOCK = threading.Lock()
_GROUPS: dict[Owner, set[int]] = {}  # the running helpers' process groups, per owner


def _run_tracked(owner: Owner, request: Any, cancel: threading.Event) -> TaskResult:
    """Run one search, its process group known to :func:`shutdown` while it runs."""
    from oraculum.codex.search import run_search

    pids: list[int] = []

    def started(pid: int) -> None:
        pids.append(pid)
        with _GROUPS_LOCK:
            _GROUPS.setdefault(owner, set()).add(pid)

    try:
        return run_search(request, cancel, on_start=started)
    finally:
        with _GROUPS_LOCK:
            _GROUPS.get(owner, set()).difference_update(pids)


@with_config(UNTITLED)
class CodexOutput(Common, total=False):
    taskId: Annotated[str, Field(description="The task whose one notice will come later.")]
    effort: Annotated[str, Field(description="The profile used (image forces research).")]
    image: bool


def _started(task_id: str, effort: str, image: bool) -> Outcome:
    data: dict[str, Any] = {"taskId": task_id, "effort": effort}
    if image:
        data["image"] = True
    return outcome(
        f"codex_search {task_id} started ({'image' if image else effort}).",
        data,
        next_step="Its result (or failure) arrives once, in a later tool result; do not wait or "
        "poll for it — continue with independent work or end your response.",
    )


async def codex_search(
    ctx: Context,
    prompt: Annotated[str, arg("Prompt", "The research or image request, sent on stdin.")],
    effort: Annotated[
        Literal["quick", "research"],
        arg(
            "Effort",
            "quick: search, scraping, extraction, cleanup. research: complex source comparison "
            "or synthesis.",
        ),
    ] = "quick",
    image: Annotated[
        bool, arg("Image", "Generate an image (forces research; needs write: true).")
    ] = False,
    write: Annotated[
        bool, arg("Write", "Let the helper write in the project (workspace-write sandbox).")
    ] = False,
    yolo: Annotated[
        bool,
        arg(
            "YOLO",
            "Bypass approvals and sandboxing entirely. Never without the user's specific "
            "authorization for YOLO.",
        ),
    ] = False,
) -> Annotated[CallToolResult, CodexOutput]:
    """Difficult web research or image generation by the `codex_search` helper (Codex). Returns
    at once; exactly one result or failure arrives in a later tool result. At most four at once
    per session; start independent searches together. Research is model-produced: ask for URLs
    and verify them. A failure must be mentioned to the user; continue with another tool."""

    def call(state: OracleMcp) -> Outcome:
        from oraculum.codex.search import plan_search, resolve_executable

        request = plan_search(
            prompt, effort=effort, image=image, write=write, yolo=yolo, cwd=state.root
        )
        resolve_executable()  # a missing helper is refused now, not in a later notice
        owner = Owner(state.project_id, state.session_id)

        def work(cancel: threading.Event) -> TaskResult:
            return _run_tracked(owner, request, cancel)

        title = f"codex_search: {prompt.strip().splitlines()[0]}"[:300]
        task_id = BACKGROUND.start(owner, title, work)
        return _started(task_id, request.effort, request.image)

    return await run_operation(ctx, "codex_search", call)


def shutdown(state: OracleMcp) -> None:
    """The session's server stops: abort its searches (not durable; each posts its notice).
    Every helper is signalled before any wait: a host may kill this server seconds later."""
    from oraculum.core.process_group import hurry_group

    owner = Owner(state.project_id, state.session_id)
    for task_id in BACKGROUND.running(owner):
        BACKGROUND.cancel(task_id)  # before the signal: its exit then reads as cancelled
    with _GROUPS_LOCK:
        groups = sorted(_GROUPS.pop(owner, set()))
    for pid in groups:
        hurry_group(pid)
    BACKGROUND.cancel_owner(owner, join_s=CANCEL_JOIN_S)


TOOLS = (ToolSpec(codex_search, "Research or generate an image with Codex", OUTWARD_HINTS),)
