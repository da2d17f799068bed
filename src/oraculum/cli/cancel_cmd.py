"""`oraculum cancel JOB` and `oraculum clean <JOB|all>`."""

from __future__ import annotations

import click

from oraculum.cli.base import Command, argument
from oraculum.cli.output import emit


# JOB is required, but its absence is the service's to refuse (`invalid_argument` with the
# usage it gives every surface), not click's.
@click.command("cancel", cls=Command, examples=("oraculum cancel 3k9x2a",))
@argument(
    "job",
    required=False,
    help="The job to cancel (any project): id, short form or prefix; required.",
)
def cancel_command(job: str | None) -> None:
    """Cancel a queued or running job. Needs the id: it never guesses."""
    from oraculum.jobs.ids import is_council_ref

    if is_council_ref(job):  # a council: every unfinished member
        from oraculum.cli.council_cmd import show_council

        show_council(job or "", "cancel")
        return
    from oraculum.cli.status_cmd import project_note
    from oraculum.service.cancel import cancel

    result = cancel(job)
    emit(result.to_json(), text=result.text("cli") + project_note(result.job))


@click.command(
    "clean",
    cls=Command,
    examples=("oraculum clean 3k9x2a", "oraculum clean all", "oraculum clean --expired"),
)
@argument("target", required=False, metavar="[JOB|all]", help="A finished job's id, or `all`.")
@click.option("--expired", is_flag=True, help="Remove every job past its retention (all projects).")
@click.option("--force", is_flag=True, help="Remove finished jobs even inside their wake-up grace.")
def clean_command(target: str | None, expired: bool, force: bool) -> None:
    """Remove finished jobs' directories: one, all of this project's, or the expired ones.
    Open jobs are never removed (cancel them first)."""
    from oraculum.service.clean import clean

    result = clean(target, expired=expired, force=force)
    emit(result.to_json(), text=result.text("cli"))
