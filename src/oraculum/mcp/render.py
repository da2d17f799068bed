"""How an MCP tool result is worded: pure functions from a service result to an :class:`Outcome`.

The service operations return the same dicts the CLI prints as JSON. For an agent, the result's
text says each fact once and briefly, in MCP terms (tool calls, not shell commands), and its
`structuredContent` holds the data — without the prose that the text already carries. Wake-ups
are joined last (:func:`compose`): at most one per job, their message once, as text, and their
facts in `wakeups`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from oraculum.auth.result import AuthResult
from oraculum.core.errors import OracleError
from oraculum.core.surface import Surface, for_surface, tool_call
from oraculum.service.cancel import CancelResult
from oraculum.service.preflight import PreflightReport
from oraculum.service.presets import PresetsResult
from oraculum.service.wait import WaitResult
from oraculum.sessions.wakeup import Wakeup

SURFACE: Surface = "mcp"
# A status list shows each job this briefly (the full summary is one `oracle_status` away).
BRIEF_JOB_KEYS = ("id", "status", "phase", "provider", "createdAt", "sessionId", "errorCode")


@dataclass(frozen=True)
class Outcome:
    """What one tool call produced, before wake-ups are joined."""

    text: str
    data: dict[str, Any]
    is_error: bool = False
    # The job this result is about: its wake-up, when one rides along, is counted as seen but
    # its message is not repeated (the result already says how the job ended).
    subject: str | None = None


def compose(outcome: Outcome, wakeups: list[Wakeup]) -> tuple[str, dict[str, Any]]:
    """The result's text and structured content, with the wake-ups it carries."""
    texts = [outcome.text] if outcome.text else []
    texts += [w.text for w in wakeups if w.job_id != outcome.subject]
    data = dict(outcome.data)
    if wakeups:
        data["wakeups"] = [w.to_data() for w in wakeups]
    return "\n\n".join(texts), data


def error_outcome(error: OracleError) -> Outcome:
    """The documented error shape: text `[code] message` and the next step; the error object
    (in MCP terms) as structured content."""
    shown = error.to_dict()
    shown["message"] = for_surface(error.message, SURFACE)
    if error.suggested_next_step:
        shown["suggestedNextStep"] = for_surface(error.suggested_next_step, SURFACE)
    text = f"[{error.code}] {shown['message']}"
    if "suggestedNextStep" in shown:
        text += f"\nSuggested next step: {shown['suggestedNextStep']}"
    return Outcome(text, {"error": shown}, is_error=True)


def yes_no(value: object) -> str:
    return "yes" if value else "no"


def plain(value: object) -> str:
    """A value as a reader writes it: yes/no, a comma-separated list, not Python's repr."""
    if isinstance(value, bool):
        return yes_no(value)
    if isinstance(value, list | tuple):
        return ", ".join(plain(item) for item in value)
    return str(value)


def preflight_outcome(report: PreflightReport, *, generated: bool) -> Outcome:
    data = {k: v for k, v in report.to_json().items() if k not in ("message", "capacityLine")}
    data["session"] = {**data["session"], "generated": generated}
    text = report.text(SURFACE)
    if generated:
        text += " (The session id was generated for this server.)"
    return Outcome(text, data)


def submit_outcome(result: dict[str, Any]) -> Outcome:
    job = result["job"]
    queued = job["status"] == "queued"
    lines = [f"Oracle job {job['id']} {'queued' if queued else 'dispatched'} ({_selection(job)})."]
    position = job.get("queue", {}).get("position")
    if queued and position:
        lines.append(f"Queue position {position} of {job['queue']['depth']}; it starts by itself.")
    if job.get("followUpToJobId"):
        lines.append(f"Follow-up to job {job['followUpToJobId']}.")
    archive = job.get("archive") or {}
    if archive:
        lines.append(f"Archive: {archive['fileCount']} files, {archive['bytes'] / 2**20:.2f} MiB.")
    pruned = job.get("autoPrunedArchivePaths") or []
    if pruned:
        names = ", ".join(p["relativePath"] for p in pruned)
        lines.append(f"Auto-pruned to fit the size limit: {names}.")
    wait = tool_call("oracle_wait", {"jobId": job["id"]})
    lines.append(
        "Stop now: the completion wake-up arrives in a later oracle tool result "
        f"(or call {wait}, at most 50 s per call)."
    )
    return Outcome("\n".join(lines), {"job": job}, subject=job["id"])


def read_outcome(result: dict[str, Any]) -> Outcome:
    job, response = result["job"], result["response"]
    lines = [f"Oracle job {job['id']} is {job['status']} ({job['phase']})."]
    if job.get("error"):
        lines.append(f"Error: {job['error']}")
    lines += [f"{key}: {plain(value)}" for key, value in result["gaps"].items()]
    if "recollection" in result:
        lines.append(for_surface(result["recollection"]["message"], SURFACE) or "")
    if result["artifacts"]:
        lines.append(f"Artifacts: {len(result['artifacts'])} in {job['artifactsPath']}")
    if not response["available"]:
        lines.append("Response: not saved yet.")
    else:
        lines.append(f"Response ({response['chars']} characters, {response['path']}):")
        lines += ["", response.get("preview", "")]
        if response.get("truncated"):
            lines.append(f"… (truncated; the rest is in {response['path']})")
    data = dict(result)
    if "recollection" in data:
        recollection = dict(data["recollection"])
        recollection["message"] = for_surface(recollection["message"], SURFACE)
        data["recollection"] = recollection
    return Outcome("\n".join(lines), data, subject=job["id"])


def status_outcome(result: dict[str, Any]) -> Outcome:
    if "job" in result:
        return _one_status(result["job"])
    jobs = [{k: job[k] for k in BRIEF_JOB_KEYS if k in job} for job in result["jobs"]]
    data = {"jobs": jobs, "project": result.get("project")}
    if result.get("problems"):
        data["problems"] = result["problems"]
    if not jobs:
        return Outcome("No oracle jobs in this project yet.", data)
    lines = ["Recent oracle jobs (newest first):"]
    lines += [f"- {j['id']}: {j['status']} ({j['phase']}), {j['provider']}" for j in jobs]
    return Outcome("\n".join(lines), data)


def _one_status(job: dict[str, Any]) -> Outcome:
    lines = [
        f"Oracle job {job['id']}: {job['status']} ({job['phase']}), {_selection(job)}, "
        f"created {job['createdAt']}."
    ]
    queue = job.get("queue", {})
    if queue.get("position"):
        lines.append(f"Queue position {queue['position']} of {queue['depth']}.")
    if job.get("error"):
        lines.append(f"Error ({job.get('errorCode', 'failed')}): {job['error']}")
    if job.get("lastEvent"):
        event = job["lastEvent"]
        lines.append(f"Last event: {event['at']} [{event['source']}] {event['message']}")
    lines.append(
        f"Prompt sent: {job['promptSendState']}; cleanup pending: "
        f"{yes_no(job.get('cleanupPending'))}."
    )
    if job["status"] in ("complete", "failed", "cancelled"):
        saved = job["responsePath"] if job.get("responseAvailable") else "not saved"
        lines.append(f"Response: {saved}.")
        wakeup = job.get("wakeup")
        if wakeup:
            lines.append(
                f"Wake-up: {wakeup['attempts']} sent, settled: {yes_no(wakeup['settled'])}."
            )
        lines.append(f"Read it with {tool_call('oracle_read', {'jobId': job['id']})}.")
    return Outcome("\n".join(lines), {"job": job}, subject=job["id"])


def cancel_outcome(result: CancelResult) -> Outcome:
    data = {"job": result.job, "outcome": result.outcome}
    return Outcome(result.text(SURFACE), data, subject=result.job["id"])


def auth_outcome(result: AuthResult) -> Outcome:
    data = {key: value for key, value in result.to_json().items() if key != "message"}
    return Outcome(result.text(SURFACE), data)


def wait_outcome(result: WaitResult, wakeup_text: str | None) -> Outcome:
    """``wakeup_text``: the finished job's wake-up message (the same whether or not this result
    carries the counted wake-up itself)."""
    job = result.job
    data = {
        key: value
        for key, value in result.to_json().items()
        if key in ("done", "job", "elapsedSeconds") and value is not None
    }
    subject = job["id"] if job else None
    if result.done:
        assert wakeup_text is not None
        return Outcome(wakeup_text, data, subject=subject)
    return Outcome(result.text(SURFACE), data, subject=subject)


def presets_outcome(result: PresetsResult) -> Outcome:
    return Outcome(result.text(SURFACE), result.to_json())


def _selection(job: dict[str, Any]) -> str:
    selection = job.get("selection") or {}
    label = selection.get("label")
    return f"{job['provider']}, {label}" if label and job["provider"] != "test" else job["provider"]
