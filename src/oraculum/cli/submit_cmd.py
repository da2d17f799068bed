"""`oraculum submit` and `oraculum followup`."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import click

from oraculum.cli.base import ALLOW_ANY_DIR, CALLER, Command, argument
from oraculum.cli.output import MODE, WalkProgress, console, emit
from oraculum.cli.wait_cmd import show_answer, wait_with_live_line

if TYPE_CHECKING:
    from oraculum.service.caller import Caller
    from oraculum.service.dryrun import DryRunResult
    from oraculum.service.submit import SubmitResult

FILES = argument(
    "files",
    nargs=-1,
    help="Files or directories to archive, relative to the current directory as in any shell "
    "('.', the default, is this directory; '../README.md' works inside the project; nothing "
    "outside it). The archive names them from the project root.",
)
PRESET = click.option(
    "--preset", metavar="ID", help="ChatGPT preset (see `oraculum presets`), Grok or Gemini mode."
)
WAIT = click.option(
    "--wait",
    "wait_for_it",
    is_flag=True,
    help="Block until the job ends; print its answer (--json: its wake-up).",
)
INCLUDE_GIT_DIR = click.option(
    "--include-git-dir",
    is_flag=True,
    help="Allow naming .git as a file to archive (every committed secret goes with it).",
)
DRY_RUN = click.option(
    "--dry-run",
    is_flag=True,
    help="Build everything and send nothing: show the prompt, provider, preset, archive, "
    "estimated tokens and capacity. No job is created.",
)
FORCE = click.option(
    "--force", is_flag=True, help="Send even while an identical job is queued or running."
)
PROMPT_FILE = click.option(
    "--prompt-file",
    metavar="FILE",
    help="Read the prompt from FILE (UTF-8; - reads standard input). Long prompts go here.",
)


def _check_dry_run(dry_run: bool, wait_for_it: bool) -> None:
    if dry_run and wait_for_it:
        from oraculum.core.errors import ErrorCode, OracleError

        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            "--dry-run sends nothing, so there is nothing to --wait for.",
            suggested_next_step="Drop --wait (or --dry-run).",
        )


def _submitted(result: SubmitResult | DryRunResult, *, caller: Caller, wait_for_it: bool) -> int:
    """Print what was submitted (or, with --wait, the answer); the exit code."""
    from oraculum.service.dryrun import DryRunResult

    if isinstance(result, DryRunResult) or not wait_for_it:
        emit(result.to_json(), text=result.text("cli"))
        return 0
    if not MODE.json:
        console(stderr=True).print(result.text("cli"), markup=False)
    return show_answer(wait_with_live_line(result.job["id"], caller=caller, timeout_s=None))


@click.command(
    "submit",
    cls=Command,
    examples=(
        'oraculum submit -p "Review the error handling in src/api" src/api tests/api',
        "oraculum submit --prompt-file question.md --preset pro --wait",
        'oraculum submit -p "Which of these is faster?" --provider grok bench/',
        'oraculum submit -p "Why?" --dry-run',
    ),
)
@FILES
@click.option("-p", "--prompt", metavar="PROMPT", help="The question for the oracle.")
@PROMPT_FILE
@PRESET
@click.option(
    "--provider",
    metavar="NAME",
    help="chatgpt, grok, gemini, or test (a dry run: no browser, echoes).",
)
@click.option("--follow-up", metavar="JOB", help="Continue the thread of this completed job.")
@click.option(
    "--conversation", metavar="ID|URL", help="Continue this ChatGPT conversation (id or URL)."
)
@CALLER
@WAIT
@INCLUDE_GIT_DIR
@ALLOW_ANY_DIR
@click.option(
    "--research-answer",
    metavar="ANSWER",
    help="deep_research: the answer to send if Deep Research asks a question first.",
)
@DRY_RUN
@FORCE
def submit_command(
    files: tuple[str, ...],
    prompt: str | None,
    prompt_file: str | None,
    preset: str | None,
    provider: str | None,
    follow_up: str | None,
    conversation: str | None,
    caller: Caller,
    wait_for_it: bool,
    include_git_dir: bool,
    allow_any_dir: bool,
    research_answer: str | None,
    dry_run: bool,
    force: bool,
) -> int:
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
            caller=caller,
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
    return _submitted(result, caller=caller, wait_for_it=wait_for_it)


@click.command(
    "followup",
    cls=Command,
    examples=(
        'oraculum followup 3k9x2a "And how would you test it?"',
        'oraculum followup 3k9x2a -p "Now look at these" src/db tests/db',
        "oraculum followup 3k9x2a --prompt-file next.md --wait",
    ),
)
@argument("job", help="The completed job whose thread continues.")
@argument(
    "prompt",
    required=False,
    help="The follow-up question (with -p or --prompt-file, a first file instead).",
)
@FILES
@click.option(
    "-p",
    "--prompt",
    "prompt_option",
    metavar="PROMPT",
    help="The follow-up question, as `submit -p` takes it.",
)
@PROMPT_FILE
@PRESET
@CALLER
@WAIT
@INCLUDE_GIT_DIR
@ALLOW_ANY_DIR
@DRY_RUN
@FORCE
def followup_command(
    job: str,
    prompt: str | None,
    files: tuple[str, ...],
    prompt_option: str | None,
    prompt_file: str | None,
    preset: str | None,
    caller: Caller,
    wait_for_it: bool,
    include_git_dir: bool,
    allow_any_dir: bool,
    dry_run: bool,
    force: bool,
) -> int:
    """Ask a follow-up in the same provider thread as JOB. With -p or --prompt-file (as
    `submit` takes them), every argument after JOB is a file to archive. JOB may belong to
    another project: the follow-up belongs to, and archives from, this directory's project."""
    from oraculum.service.followup import followup
    from oraculum.service.prompt import choose_prompt, prompt_text

    _check_dry_run(dry_run, wait_for_it)
    inputs = list(files)
    if prompt_option is not None or prompt_file is not None:
        text = choose_prompt(prompt_option, prompt_file)
        inputs = [*([prompt] if prompt is not None else []), *inputs]
    else:
        text = prompt_text(prompt)
    progress = WalkProgress()
    try:
        result = followup(
            job,
            text,
            inputs or ["."],
            caller=caller,
            preset=preset,
            include_git_dir=include_git_dir,
            allow_any_dir=allow_any_dir,
            progress=progress,
            force=force,
            dry=dry_run,
        )
    finally:
        progress.done()
    return _submitted(result, caller=caller, wait_for_it=wait_for_it)
