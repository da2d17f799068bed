"""`oraculum submit` and `oraculum followup`."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import typer

from oraculum.cli.app import MODE, app, console, emit
from oraculum.cli.archiving import ALLOW_ANY_DIR_HELP, WalkProgress
from oraculum.cli.wait_cmd import SESSION_OPTION
from oraculum.cli.waiting import show_answer, wait_with_live_line

if TYPE_CHECKING:
    from oraculum.service.dryrun import DryRunResult
    from oraculum.service.submit import SubmitResult

FILES_ARGUMENT = typer.Argument(
    None,
    help="Files or directories to archive, relative to the current directory as in any shell "
    "('.', the default, is this directory; '../README.md' works inside the project; nothing "
    "outside it). The archive names them from the project root.",
)
PRESET_OPTION = typer.Option(
    None, "--preset", help="ChatGPT preset (see `oraculum presets`) or Grok mode."
)
WAIT_OPTION = typer.Option(
    False, "--wait", help="Block until the job ends; print its answer (--json: its wake-up)."
)
INCLUDE_GIT_DIR_OPTION = typer.Option(
    False,
    "--include-git-dir",
    help="Allow naming .git as a file to archive (every committed secret goes with it).",
)
ALLOW_ANY_DIR_OPTION = typer.Option(False, "--allow-any-dir", help=ALLOW_ANY_DIR_HELP)
DRY_RUN_OPTION = typer.Option(
    False,
    "--dry-run",
    help="Build everything and send nothing: show the prompt, provider, preset, archive, "
    "estimated tokens and capacity. No job is created.",
)
FORCE_OPTION = typer.Option(
    False, "--force", help="Send even while an identical job is queued or running."
)
PROMPT_FILE_OPTION = typer.Option(
    None,
    "--prompt-file",
    metavar="PATH",
    help="Read the prompt from PATH (UTF-8; - reads standard input). Long prompts go here.",
)


def _check_dry_run(dry_run: bool, wait_for_it: bool) -> None:
    if dry_run and wait_for_it:
        from oraculum.core.errors import ErrorCode, OracleError

        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            "--dry-run sends nothing, so there is nothing to --wait for.",
            suggested_next_step="Drop --wait (or --dry-run).",
        )


def _submitted(
    result: SubmitResult | DryRunResult, *, session: str | None, wait_for_it: bool
) -> None:
    from oraculum.service.dryrun import DryRunResult

    if isinstance(result, DryRunResult) or not wait_for_it:
        emit(result.to_json(), text=result.text("cli"))
        return
    if not MODE.json:
        console(stderr=True).print(result.text("cli"), markup=False)
    code = show_answer(wait_with_live_line(result.job["id"], session=session, timeout_s=None))
    if code:
        raise typer.Exit(code)


@app.command("submit")
def submit_command(
    prompt: str | None = typer.Option(None, "-p", "--prompt", help="The question for the oracle."),
    prompt_file: str | None = PROMPT_FILE_OPTION,
    files: list[str] | None = FILES_ARGUMENT,
    preset: str | None = PRESET_OPTION,
    provider: str | None = typer.Option(
        None, "--provider", help="chatgpt, grok, or test (a dry run: no browser, echoes)."
    ),
    follow_up: str | None = typer.Option(
        None, "--follow-up", help="Continue the thread of this completed job."
    ),
    conversation: str | None = typer.Option(
        None, "--conversation", help="Continue this ChatGPT conversation (id or URL)."
    ),
    session: str | None = SESSION_OPTION,
    wait_for_it: bool = WAIT_OPTION,
    include_git_dir: bool = INCLUDE_GIT_DIR_OPTION,
    allow_any_dir: bool = ALLOW_ANY_DIR_OPTION,
    research_answer: str | None = typer.Option(
        None,
        "--research-answer",
        metavar="TEXT",
        help="deep_research: the answer to send if Deep Research asks a question first.",
    ),
    dry_run: bool = DRY_RUN_OPTION,
    force: bool = FORCE_OPTION,
) -> None:
    """Archive FILES, submit PROMPT as a background job, and return at once (or --wait)."""
    from oraculum.service.dryrun import dry_run as dry
    from oraculum.service.prompt import choose_prompt
    from oraculum.service.submit import research_answer_extras, submit

    _check_dry_run(dry_run, wait_for_it)
    progress = WalkProgress()
    try:
        # The same request either way; a dry run only says what it would send.
        send = partial(dry) if dry_run else partial(submit, force=force)
        result: SubmitResult | DryRunResult = send(
            choose_prompt(prompt, prompt_file),
            list(files or ["."]),
            session=session,
            preset=preset,
            provider=provider,
            follow_up_job=follow_up,
            conversation=conversation,
            include_git_dir=include_git_dir,
            allow_any_dir=allow_any_dir,
            progress=progress,
            selection_extras=research_answer_extras(research_answer),
        )
    finally:
        progress.done()
    _submitted(result, session=session, wait_for_it=wait_for_it)


@app.command("followup")
def followup_command(
    job: str = typer.Argument(..., help="The completed job whose thread continues."),
    prompt: str | None = typer.Argument(
        None, help="The follow-up question (with -p or --prompt-file, a first file instead)."
    ),
    files: list[str] | None = FILES_ARGUMENT,
    prompt_option: str | None = typer.Option(
        None, "-p", "--prompt", help="The follow-up question, as `submit -p` takes it."
    ),
    prompt_file: str | None = PROMPT_FILE_OPTION,
    preset: str | None = PRESET_OPTION,
    session: str | None = SESSION_OPTION,
    wait_for_it: bool = WAIT_OPTION,
    include_git_dir: bool = INCLUDE_GIT_DIR_OPTION,
    allow_any_dir: bool = ALLOW_ANY_DIR_OPTION,
    dry_run: bool = DRY_RUN_OPTION,
    force: bool = FORCE_OPTION,
) -> None:
    """Ask a follow-up in the same provider thread as JOB. With -p or --prompt-file (as
    `submit` takes them), every argument after JOB is a file to archive. JOB may belong to
    another project: the follow-up belongs to, and archives from, this directory's project."""
    from oraculum.service.followup import followup
    from oraculum.service.prompt import choose_prompt, prompt_text

    _check_dry_run(dry_run, wait_for_it)
    if prompt_option is not None or prompt_file is not None:
        text = choose_prompt(prompt_option, prompt_file)
        files = [*([prompt] if prompt is not None else []), *(files or [])]
    else:
        text = prompt_text(prompt)
    progress = WalkProgress()
    try:
        result = followup(
            job,
            text,
            list(files or ["."]),
            session=session,
            preset=preset,
            include_git_dir=include_git_dir,
            allow_any_dir=allow_any_dir,
            progress=progress,
            force=force,
            dry=dry_run,
        )
    finally:
        progress.done()
    _submitted(result, session=session, wait_for_it=wait_for_it)
