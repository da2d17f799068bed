"""`oracle_council`: one question to several models, one wake-up (issue 43 §1, docs/agents.md).

Part of the oracle's own tools (``FAMILY`` is ``oracle``: every profile has it). oracle_status,
oracle_read, oracle_wait and oracle_cancel show a council when given its id (`cl-…`), through
:func:`council_outcome`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field, with_config

from oraculum.core.surface import Surface
from oraculum.mcp.profiles import ORACLE
from oraculum.mcp.prompts import BRIDGE_WAKEUP
from oraculum.mcp.render import Outcome, outcome
from oraculum.mcp.schemas import (
    OUTWARD_HINTS,
    UNTITLED,
    AllowAnyDirArg,
    Common,
    DryRunArg,
    FilesArg,
    ForceArg,
    IncludeGitDirArg,
    PromptArg,
    arg,
)
from oraculum.mcp.state import OracleMcp, run_operation
from oraculum.mcp.toolkit import ToolSpec

__all__ = ["FAMILY", "TOOLS", "CouncilOutput", "council_outcome", "oracle_council"]

FAMILY = ORACLE
SURFACE: Surface = "mcp"
CouncilAction = Literal["status", "read", "wait", "cancel"]


@with_config(UNTITLED)
class CouncilOutput(Common, total=False):
    council: Annotated[
        dict[str, Any],
        Field(description="id, ended, and each member's name, jobId, status and errorCode."),
    ]
    markdownPath: str
    dryRun: Annotated[dict[str, Any], Field(description="dryRun: what each member would send.")]


def _brief(result: Any) -> dict[str, Any]:
    """The council's compact facts: what an agent acts on (the text has the rest)."""
    council = result.council
    members = []
    entries = list(council["members"])
    if council.get("synthesis"):
        entries.append({**council["synthesis"], "synthesis": True})
    for member in entries:
        job = result.jobs.get(member.get("jobId") or "") or {}
        shown = {"name": member["name"], "jobId": member.get("jobId")}
        shown["status"] = job.get("status", "not admitted")
        code = job.get("errorCode") or member.get("errorCode")
        if code:
            shown["errorCode"] = code
        if member.get("synthesis"):
            shown["synthesis"] = True
        members.append(shown)
    return {"id": council["id"], "ended": council.get("endedAt") is not None, "members": members}


def council_outcome(ref: str, action: CouncilAction, *, timeout_s: float = 50.0) -> Outcome:
    """A council shown for oracle_status / oracle_read / oracle_wait / oracle_cancel."""
    from oraculum.core.errors import ErrorCode, OracleError
    from oraculum.service import council as service

    if action == "cancel":
        result = service.cancel_council(ref)
    elif action == "read":
        result = service.read_council(ref)
    elif action == "wait":
        try:
            result = service.wait_council(ref, timeout_s=timeout_s, poll_s=0.5)
        except OracleError as error:
            if error.code != ErrorCode.WAIT_TIMEOUT:
                raise
            result = service.council_result(ref)
    else:
        result = service.council_result(ref)
    facts = _brief(result)
    data: dict[str, Any] = {"council": facts}
    if facts["ended"]:
        data["markdownPath"] = result.markdown_path
    text = result.text(SURFACE)
    first = text.splitlines()[0] if text else ""
    return outcome(first, data, text=text, subject=result.council.get("noticeId"))


MembersArg = Annotated[
    list[str],
    arg(
        "Members",
        'provider:preset of each member, e.g. ["chatgpt:pro_extended", "grok:heavy"]; '
        "each is an ordinary job with the same prompt and archive.",
        min_length=1,
        max_length=8,
    ),
]
SynthesizeArg = Annotated[
    str | None,
    arg(
        "Synthesize",
        "provider:preset asked, once the members end, for agreements, disagreements and a "
        "recommendation (it tops council.md).",
    ),
]
DeadlineArg = Annotated[
    float | None,
    arg("Deadline (minutes)", "Wake up at this age with whatever has ended.", gt=0),
]


def _dry_run_outcome(
    prompt: str, members: list[str], files: list[str], common: dict[str, Any]
) -> Outcome:
    from oraculum.service.council import council_dry_run

    dry = council_dry_run(prompt, members, files, **common)
    step = "To send it, call `oracle_council` again without dryRun."
    text = dry.text(SURFACE)
    archives = dry.to_json()["dryRun"]["archives"]
    facts = {"members": [name for name, _ in dry.members], "archives": archives}
    return outcome(text.splitlines()[0], {"dryRun": facts}, text=text, next_step=step)


async def oracle_council(
    ctx: Context,
    prompt: PromptArg,
    files: FilesArg,
    members: MembersArg,
    synthesize: SynthesizeArg = None,
    deadlineMinutes: DeadlineArg = None,
    includeGitDir: IncludeGitDirArg = False,
    allowAnyDir: AllowAnyDirArg = False,
    dryRun: DryRunArg = False,
    force: ForceArg = False,
) -> Annotated[CallToolResult, CouncilOutput]:
    """Ask several models (ChatGPT, Grok) the same question with the same archive; returns at
    once with a council id (cl-…). Stop after it: ONE wake-up arrives when every member has
    ended, with who answered and who failed; then oracle_read the council id for every answer
    (council.md). dryRun shows what each member would send without sending."""

    def call(state: OracleMcp) -> Outcome:
        from oraculum.service.council import submit_council

        common: dict[str, Any] = {
            "caller": state.caller(),
            "synthesize": synthesize,
            "include_git_dir": includeGitDir,
            "allow_any_dir": allowAnyDir,
        }
        if dryRun:
            return _dry_run_outcome(prompt, members, files, common)
        result = submit_council(
            prompt,
            members,
            files,
            request_source="mcp",
            deadline_s=deadlineMinutes * 60 if deadlineMinutes else None,
            force=force,
            **common,
        )
        # Through the pi bridge (one process per call) the wake-up starts a turn of its own.
        wakeup = BRIDGE_WAKEUP if state.per_call else None
        text = result.text(SURFACE, wakeup=wakeup)
        return outcome(text.splitlines()[0], {"council": _brief(result)}, text=text)

    return await run_operation(ctx, "oracle_council", call)


TOOLS = (ToolSpec(oracle_council, "Ask a council of oracle models", OUTWARD_HINTS),)
