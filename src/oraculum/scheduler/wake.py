"""The wake of one occurrence: its text (pure) and its durable notice to the owning session."""

from __future__ import annotations

from typing import Any

from oraculum.tasks import Owner, post_notice

__all__ = ["NOTICE_KIND", "describe_outcome", "post_wake", "wake_data", "wake_text"]

NOTICE_KIND = "schedule"


def describe_outcome(outcome: str, detail: dict[str, Any]) -> str:
    """One line: what happened to this occurrence."""
    if outcome == "exit":
        return f"exited with code {detail.get('exit_code')}"
    if outcome == "signal":
        return f"was killed by {detail.get('signal')}"
    return {
        "heartbeat": "fired (a reminder: no payload)",
        "timeout": f"timed out ({detail.get('message', '')})",
        "start_error": f"could not start: {detail.get('message', '')}",
        "unknown": "outcome unknown: the scheduler runner stopped while it ran (not retried)",
        "missed": "was missed: the runner was not running at its time (not run late)",
        "skipped": "was skipped: the previous occurrence was still running",
    }.get(outcome, outcome)


def _stream(name: str, detail: dict[str, Any]) -> list[str]:
    stream = detail.get(name)
    if not stream or not stream.get("preview"):
        return []
    cut = " (first 4,000 bytes)" if stream.get("truncated") else ""
    return [f"--- {name}{cut}: {stream.get('path', '')}", stream["preview"].rstrip("\n")]


def wake_text(schedule: dict[str, Any], occurrence: dict[str, Any], detail: dict[str, Any]) -> str:
    """The message the session reads: what ran, its outcome, the previews, then the prompt."""
    payload = schedule.get("payload")
    what = " ".join([payload["executable"], *payload.get("args", [])]) if payload else "reminder"
    lines = [
        f"Scheduled occurrence of {schedule['id']} ({what}) at {occurrence['scheduled_for']} "
        f"{describe_outcome(occurrence['outcome'], detail)}.",
        *_stream("stdout", detail),
        *_stream("stderr", detail),
        "",
        "Re-entry prompt (from the submitter):",
        schedule["prompt"],
        "",
        f"`oraculum schedule show {schedule['id']}` lists every occurrence.",
    ]
    return "\n".join(lines)


def wake_data(schedule: dict[str, Any], occurrence: dict[str, Any]) -> dict[str, Any]:
    return {
        "scheduleId": schedule["id"],
        "occurrenceId": occurrence["id"],
        "scheduledFor": occurrence["scheduled_for"],
        "outcome": occurrence["outcome"],
        "detail": occurrence.get("detail") or {},
    }


def post_wake(schedule: dict[str, Any], occurrence: dict[str, Any]) -> str:
    """Post the occurrence's wake for the schedule's session; returns the notice id."""
    owner = Owner(project_id=schedule["project_id"], session_id=schedule["session_id"])
    outcome = describe_outcome(occurrence["outcome"], occurrence.get("detail") or {})
    notice = post_notice(
        owner,
        kind=NOTICE_KIND,
        source_id=schedule["id"],
        title=f"schedule {schedule['id']} {outcome}"[:300],
        text=occurrence["wake"],
        data=wake_data(schedule, occurrence),
    )
    return notice.id
