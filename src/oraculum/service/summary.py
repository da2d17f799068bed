"""How a job is described to people and agents: one summary shape for every surface."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from oraculum.jobs import indexes
from oraculum.jobs.model import Job, Phase, Status, iso, utc_now


def phase_words(phase: str) -> str:
    """A summary's phase as people read it (see :attr:`Phase.words`)."""
    return Phase(phase).words


def ended_next_step(job: dict[str, Any]) -> str | None:
    """What a reader does about a job that ended without an answer (a job summary): the
    error's own next step, else one that follows from whether the prompt went out."""
    if job["status"] not in (Status.FAILED.value, Status.CANCELLED.value):
        return None
    if job.get("errorNextStep"):
        return str(job["errorNextStep"])
    sent = job.get("promptSendState") == "accepted"
    if sent and job.get("chatUrl"):
        return (
            f"The prompt reached the provider: recover the answer with "
            f"`oraculum read {job['id']} --recollect` before resubmitting."
        )
    if sent:
        return "The prompt reached the provider: check the conversation before resubmitting."
    if job["status"] == Status.CANCELLED.value:
        return "Nothing was sent; submit again if you still need the answer."
    return f"Nothing was sent: fix the cause (worker log: {job['workerLogPath']}) and resubmit."


def seconds_since(moment: datetime | None, now: datetime) -> float | None:
    return None if moment is None else round((now - moment).total_seconds(), 3)


def job_summary(job: Job, *, now: datetime | None = None) -> dict[str, Any]:
    """The facts a reader needs to decide what to do next, without the full record."""
    now = now or utc_now()
    summary: dict[str, Any] = {
        "id": job.id,
        "status": job.status.value,
        "phase": job.phase.value,
        "provider": job.provider,
        "selection": job.selection.to_json_dict(),
        "createdAt": job.to_json_dict()["createdAt"],
        "ageSeconds": seconds_since(job.created_at, now),
        "heartbeatAgeSeconds": seconds_since(job.heartbeat_at, now),
        "promptSendState": job.prompt_send_state.value,
        "projectRoot": job.project_root,
        "sessionId": job.session_id,
        "responsePath": job.response_path,
        "chatUrl": job.chat_url,
        "error": job.error,
        "errorCode": job.error_code,
        "errorNextStep": job.error_next_step,
        "errorDetails": job.error_details,
        "observedSelection": job.observed_selection,
        "collectionStatus": job.collection_status,
        "collectionGaps": job.collection_gaps or None,
        "cleanupPending": job.cleanup_pending,
    }
    if job.follow_up_to_job_id:
        summary["followUpToJobId"] = job.follow_up_to_job_id
    job_dir = Path(job.prompt_path).parent
    summary.update(
        conversationId=job.conversation_id,
        completedAt=None if job.completed_at is None else iso(job.completed_at),
        promptPath=job.prompt_path,
        archivePath=job.archive_path,
        responseAvailable=Path(job.response_path).exists(),
        artifactsPath=str(job_dir / "artifacts"),
        workerLogPath=str(Path(job.logs_dir) / "worker.log"),
        queue=_queue(job),
        wakeup=_wakeup(job),
    )
    summary.update(_answer_facts(job, summary["responseAvailable"]))
    research = _research(job, job_dir)
    if research:
        summary["research"] = research
    if summary["queue"].get("position"):
        summary["queuePosition"] = summary["queue"]["position"]
    last = job.last_fact
    if last is not None:
        summary["lastEvent"] = {"at": iso(last.at), "source": last.source, "message": last.message}
    return {key: value for key, value in summary.items() if value is not None}


def _answer_facts(job: Job, saved: bool) -> dict[str, Any]:
    """Once the provider finished answering: whether the answer is saved, and when it is not
    (`answer_not_saved`, a worker gone mid-collection), the next step: recollect, never resend."""
    if job.status != Status.COMPLETE and job.generation_status != "completed":
        return {}
    facts: dict[str, Any] = {"answerSaved": saved}
    if not saved and job.status == Status.FAILED and job.recollection_needed:
        facts["nextStep"] = f"oraculum read {job.id} --recollect"
    return facts


# Written by the Deep Research driver (providers.chatgpt.deep_research) in the job directory.
RESEARCH_STATUS_FILE = "research-status.json"
RESEARCH_QUESTION_FILE = "research-question.md"


def _research(job: Job, job_dir: Path) -> dict[str, Any] | None:
    """A Deep Research job's live status text while it researches (`researching`), and the
    clarifying question it stopped at, if any."""
    if job.selection.tool != "deep_research":
        return None
    out: dict[str, Any] = {}
    question = job_dir / RESEARCH_QUESTION_FILE
    if question.is_file():
        out["questionPath"] = str(question)
    if job.is_active:
        try:
            live = json.loads((job_dir / RESEARCH_STATUS_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            live = None
        if isinstance(live, dict) and isinstance(live.get("text"), str):
            out.update(state="researching", text=live["text"], at=live.get("at"))
    return out or None


def _queue(job: Job) -> dict[str, Any]:
    if job.status != Status.QUEUED:
        return {"queued": False}
    queue = indexes.members(indexes.QUEUE)
    if job.id not in queue:
        return {"queued": True}
    return {"queued": True, "position": queue.index(job.id) + 1, "depth": len(queue)}


def _wakeup(job: Job) -> dict[str, Any] | None:
    if job.session_id is None or not job.is_terminal:
        return None
    out: dict[str, Any] = {
        "attempts": job.wakeup_attempt_count,
        "settled": job.wakeup_settled_at is not None,
    }
    if job.wakeup_settled_at is not None:
        out["settledAt"] = iso(job.wakeup_settled_at)
        out["settledSource"] = job.wakeup_settled_source
    if job.wakeup_target_session:
        out["targetSession"] = job.wakeup_target_session
    return out


def describe_age(seconds: float | None) -> str:
    """`42s`, `3m`, `2h5m`, `4d` — short enough for a table cell."""
    if seconds is None:
        return "-"
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes}m"
    hours = minutes // 60
    if hours < 48:
        rest = minutes % 60
        return f"{hours}h{rest}m" if rest else f"{hours}h"
    return f"{hours // 24}d"
