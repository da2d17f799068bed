"""`oraculum wait [JOB]`: block until a job (or the session's next job) ends; print its
wake-up. Also the live phase line other commands (`submit --wait`) show while they wait."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from oraculum.cli.app import MODE, app, console, emit
from oraculum.core.errors import ExitCode, OracleError

if TYPE_CHECKING:
    from oraculum.service.wait import WaitResult

SESSION_OPTION = typer.Option(
    None, "--session", help="Session id (default: $ORACULUM_SESSION).", show_default=False
)


def wait_with_live_line(
    job_id: str | None,
    *,
    session: str | None,
    timeout_s: float | None,
    cwd: Path | None = None,
) -> WaitResult:
    """Run the wait, showing `<job>: <phase> · <elapsed>` on a terminal (not in JSON mode)."""
    from oraculum.service.summary import describe_age
    from oraculum.service.wait import wait

    if MODE.json or not console().is_terminal:
        return wait(job_id, session=session, timeout_s=timeout_s, cwd=cwd)
    started = time.monotonic()
    label = job_id or "next job of this session"
    with console().status(f"{label}: waiting…") as line:

        def progress(event: dict[str, Any]) -> None:
            phase = event.get("phase", "waiting")
            elapsed = describe_age(time.monotonic() - started)
            line.update(f"{event.get('jobId', label)}: {phase} · {elapsed}")

        return wait(job_id, session=session, timeout_s=timeout_s, cwd=cwd, on_progress=progress)


def finish_wait(result: WaitResult) -> None:
    """Print a wait's result and leave with the exit code its outcome deserves."""
    if not result.done:
        raise OracleError(
            "wait_timeout",
            result.text("cli"),
            retryable=True,
            suggested_next_step="Run `oraculum wait` again; the job keeps running meanwhile.",
            details={"job": result.job},
        )
    emit(result.to_json(), text=result.text("cli"))
    job = result.job  # None when the wait ended on a background task's notice
    if job is not None and job["status"] in ("failed", "cancelled"):
        raise typer.Exit(int(ExitCode.JOB_UNSUCCESSFUL))


@app.command("wait")
def wait_command(
    job: str | None = typer.Argument(None, help="Job id or prefix; omit for the session's next."),
    session: str | None = SESSION_OPTION,
    timeout: float | None = typer.Option(
        None, "--timeout", min=0, help="Give up after this many seconds (exit 5)."
    ),
) -> None:
    """Block until the job ends (or, without JOB, until the session's next job ends) and print
    the wake-up text. Exit 6 when that job failed or was cancelled."""
    finish_wait(wait_with_live_line(job, session=session, timeout_s=timeout))
