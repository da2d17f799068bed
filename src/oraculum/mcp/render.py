"""How an MCP tool result is worded: pure functions from a service result to an :class:`Outcome`.

The service operations return the same dicts the CLI prints as JSON. For an agent, the result's
text says each fact once and briefly, in MCP terms (tool calls, not shell commands), and its
`structuredContent` holds the data — without the prose that the text already carries. Wake-ups
are joined last (:func:`compose`): at most one per job, their message once, as text, and their
facts in `wakeups`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from oraculum.auth.result import AuthResult
from oraculum.core.errors import OracleError
from oraculum.core.surface import Surface, for_surface
from oraculum.service.cancel import CancelResult
from oraculum.service.preflight import PreflightReport
from oraculum.service.presets import PresetsResult
from oraculum.service.read import ReadResult
from oraculum.service.status import JobStatus, StatusResult
from oraculum.service.submit import SubmitResult
from oraculum.service.wait import WaitResult
from oraculum.sessions.wakeup import Wakeup

if TYPE_CHECKING:
    from oraculum.service.dryrun import DryRunResult

SURFACE: Surface = "mcp"


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


def preflight_outcome(report: PreflightReport, *, generated: bool) -> Outcome:
    data = {k: v for k, v in report.to_json().items() if k not in ("message", "capacityLine")}
    data["session"] = {**data["session"], "generated": generated}
    text = report.text(SURFACE)
    if generated:
        text += " (The session id was generated for this server.)"
    return Outcome(text, data)


def submit_outcome(result: SubmitResult, *, wakeup: str | None = None) -> Outcome:
    """``wakeup``: where the completion arrives, for a host that delivers it itself."""
    text = result.text(SURFACE, wakeup=wakeup)
    return Outcome(text, {"job": result.job}, subject=result.job["id"])


def dry_run_outcome(result: DryRunResult) -> Outcome:
    return Outcome(result.text(SURFACE), result.to_json())


def read_outcome(result: ReadResult) -> Outcome:
    return Outcome(result.text(SURFACE), result.to_json(SURFACE), subject=result.job["id"])


def status_outcome(result: StatusResult) -> Outcome:
    if isinstance(result, JobStatus):
        return Outcome(result.text(SURFACE), result.to_json(), subject=result.job["id"])
    data: dict[str, Any] = {"jobs": result.brief(), "project": result.to_json()["project"]}
    if result.problems:
        data["problems"] = result.problems
    return Outcome(result.text(SURFACE), data)


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
