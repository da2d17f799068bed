"""A desktop notification when a job ends, for a person who submitted and walked away.

With ``notify.desktop`` on (global config), the worker runs ``notify-send`` once, when its job
ends complete or failed (a cancel is the person's own doing): no live `wait`, MCP server or hook
is needed. Where ``notify-send`` is absent the worker's log says so and nothing else changes.
"""

from __future__ import annotations

import shutil

from oraculum.jobs.model import Job, Status
from oraculum.processes.run import run_helper

__all__ = ["NOTIFY_SEND", "desktop_note", "notify_desktop"]

NOTIFY_SEND = "notify-send"
_BODY_LIMIT = 300


def desktop_note(job: Job) -> tuple[str, str]:
    """The notification's title and body: how the job ended and what to run next."""
    title = f"oraculum: job {job.id} {job.status.value}"
    if job.status == Status.COMPLETE:
        body = f"The answer is saved. Read it: oraculum read {job.id}"
    else:
        reason = (job.error or "it did not finish")[:_BODY_LIMIT]
        body = f"{reason}\nSee: oraculum status {job.id}"
    return title, body


def notify_desktop(job: Job, *, timeout_s: float = 5.0) -> str | None:
    """Show ``job``'s ending on the desktop; None when shown, else why not, in words."""
    program = shutil.which(NOTIFY_SEND)
    if program is None:
        return f"{NOTIFY_SEND} is not installed"
    title, body = desktop_note(job)
    argv = [program, "--app-name=oraculum", title, body]
    return run_helper(NOTIFY_SEND, argv, stdin=None, timeout_s=timeout_s)[1]
