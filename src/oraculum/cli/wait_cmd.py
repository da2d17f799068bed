"""`oraculum wait [JOB]`: block until a job (or the session's next job) ends and print its
wake-up, with a live phase line on a terminal (`submit --wait` waits the same way)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from oraculum.cli.base import CALLER, Command, Seconds, argument
from oraculum.cli.output import MODE, console, emit
from oraculum.core.errors import ErrorCode, ExitCode, OracleError

if TYPE_CHECKING:
    from oraculum.service.caller import Caller
    from oraculum.service.wait import WaitResult

__all__ = ["finish_wait", "show_answer", "wait_command", "wait_with_live_line"]


def wait_with_live_line(
    job_id: str | None,
    *,
    caller: Caller,
    timeout_s: float | None,
    adopt: bool = False,
) -> WaitResult:
    """Run the wait, showing `<job>: <phase> · <age>` on a terminal (not in JSON mode): the
    job's own age, not how long this wait has waited."""
    from oraculum.service.summary import describe_age
    from oraculum.service.wait import wait

    def run(progress: Callable[[dict[str, Any]], None] | None = None) -> WaitResult:
        return wait(job_id, caller=caller, timeout_s=timeout_s, on_progress=progress, adopt=adopt)

    if MODE.json or not console().is_terminal:
        return run()
    started = time.monotonic()
    label = job_id or "next job of this session"
    with console().status(f"{label}: waiting…") as line:

        def progress(event: dict[str, Any]) -> None:
            phase = event.get("phase", "waiting").replace("_", " ")
            age = event.get("ageSeconds", time.monotonic() - started)
            line.update(f"{event.get('jobId', label)}: {phase} · {describe_age(age)} old")

        return run(progress)


def _ended(result: WaitResult) -> int:
    """The exit code a finished wait deserves; a wait that timed out raises ``wait_timeout``."""
    if not result.done:
        raise OracleError(
            ErrorCode.WAIT_TIMEOUT,
            result.text("cli"),
            retryable=True,
            suggested_next_step="Run `oraculum wait` again; the job keeps running meanwhile.",
            details={"job": result.job},
        )
    job = result.job  # None when the wait ended on a background task's notice
    if job is not None and job["status"] in ("failed", "cancelled"):
        return int(ExitCode.JOB_UNSUCCESSFUL)
    return 0


def finish_wait(result: WaitResult) -> int:
    """Print a wait's result (its wake-up text); the exit code its outcome deserves."""
    from oraculum.cli.status_cmd import project_note

    code = _ended(result)
    emit(result.to_json(), text=result.text("cli") + project_note(result.job))
    return code


def show_answer(result: WaitResult) -> int:
    """A person's `submit --wait`: the answer at the end, as `demo` prints it, or the failed
    job's status with its next step (JSON mode: the wait's result, as :func:`finish_wait`)."""
    if MODE.json:
        return finish_wait(result)
    code = _ended(result)
    job = result.job
    if job is None:
        return code
    out = console()
    response = Path(job["responsePath"])
    if job["status"] != "complete" or not response.is_file():
        from oraculum.cli.status_cmd import render_job

        render_job({"job": job}, out)
        return code
    from oraculum.cli.output import print_answer

    out.print(f"[green]✓[/] job {job['id']} complete — answer saved to ", end="")
    out.print(str(response), markup=False)
    out.print()
    print_answer(out, response.read_text(encoding="utf-8", errors="replace"))
    return code


@click.command(
    "wait",
    cls=Command,
    examples=(
        "oraculum wait                 # the session's next job to end",
        "oraculum wait 3k9x2a --timeout 600",
        "oraculum wait --json",
    ),
)
@argument(
    "job",
    required=False,
    help="Job id, short form or prefix (any project); omit for the session's next.",
)
@CALLER
@click.option(
    "--timeout",
    type=Seconds(),
    help="Give up after this many seconds (exit 5); without JOB, also wait for a background "
    "task's notice.",
)
@click.option(
    "--adopt",
    is_flag=True,
    help="Also take the finished jobs of this project's ended sessions (a plain wait is told "
    "only of its own session's jobs).",
)
def wait_command(job: str | None, caller: Caller, timeout: float | None, adopt: bool) -> int:
    """Block until the job ends (or, without JOB, until the session's next job ends) and print
    the wake-up text. Exit 6 when that job failed or was cancelled; exit 3
    (nothing_to_wait_for) at once when, without JOB or --timeout, the session has nothing
    queued, running or due."""
    from oraculum.jobs.ids import is_council_ref

    if is_council_ref(job):  # a council: until every member has ended
        from oraculum.cli.council_cmd import show_council

        return show_council(job or "", "wait", timeout=timeout)
    return finish_wait(wait_with_live_line(job, caller=caller, timeout_s=timeout, adopt=adopt))
