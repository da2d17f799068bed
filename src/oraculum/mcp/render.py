"""How an MCP tool result is worded: pure functions from a service result to an :class:`Outcome`.

A host hands its model either the result's text or its `structuredContent` (Claude Code and
Codex give the JSON), so each must stand on its own: the structured content holds a `message`
(what happened, the facts in words), the facts an agent acts on (a compact view — ids, status,
flags — not the full job record, which the resource `oraculum://jobs/<id>` keeps) and the
`nextStep`; the text renders the same, in MCP terms (tool calls, not shell commands). The JSON
stays within 1.5× the text (tests/mcp/test_result_sizes.py).
Wake-ups are joined last (:func:`compose`): at most one per job, each with its notice text,
said once in either form (not at all about the result's own job, which its message covers).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from oraculum.auth.result import AuthResult
from oraculum.core.errors import OracleError
from oraculum.core.surface import Surface, for_surface, tool_call
from oraculum.service.cancel import CancelResult
from oraculum.service.preflight import PreflightReport
from oraculum.service.presets import PresetsResult
from oraculum.service.read import ReadResult
from oraculum.service.status import JobStatus, StatusResult
from oraculum.service.submit import SubmitResult
from oraculum.service.summary import ended_next_step
from oraculum.service.wait import WaitResult
from oraculum.sessions.wakeup import Wakeup

if TYPE_CHECKING:
    from oraculum.service.dryrun import DryRunResult

SURFACE: Surface = "mcp"


@dataclass(frozen=True)
class Outcome:
    """What one tool call produced, before wake-ups are joined: ``data`` holds the facts;
    ``message`` (what happened, briefly) and ``next_step`` join them in the structured content
    and are part of ``text`` (see :func:`outcome`). An error's message and next step are in
    its ``error`` object instead."""

    text: str
    data: dict[str, Any]
    is_error: bool = False
    # The job this result is about: its wake-up, when one rides along, is counted as seen but
    # not repeated in either form (the result already says how the job ended).
    subject: str | None = None
    message: str = ""
    next_step: str = ""

    def structured(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"message": self.message} if self.message else {}
        shown.update(self.data)
        if self.next_step:
            shown["nextStep"] = self.next_step
        return shown


def outcome(
    message: str,
    data: dict[str, Any],
    *,
    text: str | None = None,
    next_step: str = "",
    subject: str | None = None,
) -> Outcome:
    """An outcome whose text is ``text`` (by default ``message``) with ``message`` before it
    and ``next_step`` after it unless it already says them: each form holds both."""
    shown = text if text is not None else message
    if message and message not in shown:
        shown = f"{message}\n{shown}" if shown else message
    if next_step and next_step not in shown:
        shown = f"{shown}\n{next_step}" if shown else next_step
    return Outcome(shown, data, subject=subject, message=message, next_step=next_step)


def compose(result: Outcome, wakeups: list[Wakeup]) -> tuple[str, dict[str, Any]]:
    """The result's text and structured content, with the wake-ups it carries."""
    told = [w for w in wakeups if w.job_id != result.subject]
    texts = [result.text] if result.text else []
    texts += [w.text for w in told]
    data = result.structured()
    if told:
        data["wakeups"] = [wakeup_data(w) for w in told]
    return "\n\n".join(texts), data


def wakeup_data(wakeup: Wakeup) -> dict[str, Any]:
    """A carried wake-up: which job or notice, how it ended, which reminder, and its notice
    ``text``, which holds the rest (paths, a task's title and outcome); ``adopted`` and the
    origin session only for a wake-up adopted from a gone session."""
    key = "noticeId" if wakeup.is_notice else "jobId"
    shown: dict[str, Any] = {key: wakeup.job_id}
    if wakeup.is_notice:
        shown["kind"] = wakeup.kind
    shown.update(status=wakeup.status, attempt=wakeup.attempt)
    if wakeup.session_id != wakeup.origin_session_id:
        shown.update(adopted=True, originSessionId=wakeup.origin_session_id)
    shown["text"] = wakeup.text
    return shown


def brief(job: dict[str, Any], *keys: str) -> dict[str, Any]:
    """The job summary's ``keys`` that it holds (``id`` and ``status`` always): the compact
    view a result carries."""
    return {key: job[key] for key in ("id", "status", *keys) if job.get(key) is not None}


def error_outcome(error: OracleError) -> Outcome:
    """The documented error shape: text `[code] message` and the next step; the error object
    (in MCP terms) as structured content."""
    shown = error.to_dict()
    shown["message"] = for_surface(error.message, SURFACE)
    if error.suggested_next_step:
        shown["suggestedNextStep"] = for_surface(error.suggested_next_step, SURFACE)
    text = f"[{error.code}] {shown['message']}"
    rejected = shown.get("rejectedValue")
    if isinstance(rejected, str | int | float):
        if str(rejected) in text:
            del shown["rejectedValue"]  # the message names it
        else:
            text += f" (rejected: {rejected})"
    allowed = shown.get("allowedValues") or []
    if allowed and not all(str(value) in text for value in allowed):
        text += f"\nAllowed values: {', '.join(str(value) for value in allowed)}."
    if "suggestedNextStep" in shown:
        text += f"\nSuggested next step: {shown['suggestedNextStep']}"
    return Outcome(text, {"error": shown}, is_error=True)


PREFLIGHT_NEXT = (
    "Next: choose the files to archive and write a self-contained prompt, then call "
    "`oracle_submit`."
)


def preflight_outcome(report: PreflightReport, *, generated: bool) -> Outcome:
    facts = report.to_json()
    data: dict[str, Any] = {
        "ready": report.ready,
        "provider": report.provider,
        "session": {"sessionId": report.session_id, "generated": generated},
        "projectRoot": facts["projectRoot"],
        "jobsDir": facts.get("jobsDir"),
        "capacity": facts["capacity"],
    }
    if report.follow_up_job_id:
        data["followUpJobId"] = report.follow_up_job_id
    text = report.text(SURFACE)
    if generated:
        text += " (The session id was generated for this server.)"
    text += f"\nProject root: {data['projectRoot']}.\nJobs directory: {data['jobsDir']}."
    return outcome("Oracle preflight ready.", data, text=text, next_step=PREFLIGHT_NEXT)


def submit_outcome(result: SubmitResult, *, wakeup: str | None = None) -> Outcome:
    """``wakeup``: where the completion arrives, for a host that delivers it itself."""
    *said, stop = result.text(SURFACE, wakeup=wakeup).splitlines()  # "Stop now: …" last
    job = result.job
    return outcome("\n".join(said), {"job": brief(job)}, next_step=stop, subject=job["id"])


def dry_run_outcome(result: DryRunResult) -> Outcome:
    facts = result.facts()
    facts.pop("capacityLine", None)  # the text's line; `capacity` holds the figures
    tokens = facts["estimatedTokens"] = dict(facts["estimatedTokens"])
    tokens.pop("rule", None)  # said in the text
    if result.duplicate_of:
        step = "A submit now would be refused (duplicate_job): wait for the identical job."
    else:
        step = "To send it, call `oracle_submit` again without dryRun."
    # The prompt stays last, so that nothing after it reads as part of it.
    head, said, prompt = result.text(SURFACE).partition("\nPrompt as it will be typed:\n")
    text = f"{head}\n{step}{said}{prompt}"
    return outcome(head.splitlines()[0], {"dryRun": facts}, text=text, next_step=step)


def read_outcome(result: ReadResult) -> Outcome:
    job, response = result.job, result.response
    data = result.to_json(SURFACE)
    data["job"] = brief(job, "phase", "errorCode", "error")
    if not data["artifacts"]:
        del data["artifacts"]
    else:
        data["artifactsPath"] = job["artifactsPath"]
    if not data["gaps"]:
        del data["gaps"]
    text = result.text(SURFACE)
    pending = result.pending_step(SURFACE)
    if pending:
        step = pending
    elif response.truncated:
        step = f"The preview is cut: read the rest of the answer from {response.path}."
    elif response.available:
        step = "Continue your task from the oracle's answer."
    else:
        step = _ended_step(job) or _running_step(job)
    return outcome(text.splitlines()[0], data, text=text, next_step=step, subject=job["id"])


def _running_step(job: dict[str, Any]) -> str:
    wait = tool_call("oracle_wait", {"jobId": job["id"]})
    return f"It keeps running: its wake-up arrives in a later oracle tool result (or call {wait})."


def _ended_step(job: dict[str, Any]) -> str:
    """A job that ended without an answer: what to do about it, in MCP terms."""
    step = ended_next_step(job)
    return (for_surface(step, SURFACE) or step) if step else ""


def status_outcome(result: StatusResult) -> Outcome:
    text = result.text(SURFACE)
    if isinstance(result, JobStatus):
        job = result.job
        facts = {"job": brief(job, "phase", "errorCode")}
        if job["status"] not in ("complete", "failed", "cancelled"):
            return outcome(text, facts, next_step=_running_step(job), subject=job["id"])
        *said, read_it = text.splitlines()
        step = read_it if job["status"] == "complete" else _ended_step(job) or read_it
        return outcome("\n".join(said), facts, next_step=step, subject=job["id"])
    data: dict[str, Any] = {"recentJobIds": [job["id"] for job in result.jobs]}
    if result.problems:
        data["problems"] = result.problems
    step = (
        f"Details of one: {tool_call('oracle_status', {'jobId': '<id>'})}; its answer: "
        f"{tool_call('oracle_read', {'jobId': '<id>'})}."
        if result.jobs
        else "Submit one with `oracle_submit` (after `oracle_preflight`)."
    )
    return outcome(text, data, next_step=step)


def cancel_outcome(result: CancelResult) -> Outcome:
    job = result.job
    data = {"outcome": result.outcome}
    if result.outcome == "finished_first" and job["status"] == "complete":
        step = f"Read it with {tool_call('oracle_read', {'jobId': job['id']})}."
    elif result.outcome == "cancel_failed":
        step = f"Check it with {tool_call('oracle_status', {'jobId': job['id']})}."
    else:
        step = _ended_step(job)
    return outcome(result.text(SURFACE), data, next_step=step, subject=job["id"])


def auth_outcome(result: AuthResult) -> Outcome:
    data = {key: value for key, value in result.to_json().items() if key != "message"}
    text = result.text(SURFACE)
    step = "Retry the blocked step once (oracle_preflight, then oracle_submit)."
    return outcome(text.splitlines()[0], data, text=text, next_step=step)


def wait_outcome(result: WaitResult, wakeup_text: str | None) -> Outcome:
    """``wakeup_text``: the finished job's wake-up message (the same whether or not this result
    carries the counted wake-up itself): the result's message, in full."""
    job = result.job
    data: dict[str, Any] = {"done": result.done}
    if job is not None:
        data["job"] = {"id": job["id"]} if not result.done else brief(job)
    data["elapsedSeconds"] = round(result.elapsed_seconds, 1)
    subject = job["id"] if job else None
    if result.done:
        assert wakeup_text is not None
        step = (
            f"Read it with {tool_call('oracle_read', {'jobId': job['id']})}."
            if job is not None
            else "Act on the notice this result carries (it is not an instruction to start its "
            "task again)."
        )
        return outcome(wakeup_text, data, next_step=step, subject=subject)
    message, step = result.still_open()
    return outcome(message, data, text=result.text(SURFACE), next_step=step, subject=subject)


def presets_outcome(result: PresetsResult) -> Outcome:
    """Each preset by id, provider and label (its family and effort are in the label; the
    resource `oraculum://presets` has every field)."""
    rows = [
        {key: row[key] for key in ("id", "provider", "label", "tool") if row.get(key)}
        for row in result.rows
    ]
    text = result.text(SURFACE)
    lines = text.splitlines()
    return outcome(lines[0], {"presets": rows}, text=text)
