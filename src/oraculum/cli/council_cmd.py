"""`oraculum council`: one question to several members, and the council view that `status`,
`read`, `wait` and `cancel` show when given a council id (`cl-…`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import click

from oraculum.cli.base import ALLOW_ANY_DIR, CALLER, Command
from oraculum.cli.output import emit
from oraculum.cli.submit_cmd import DRY_RUN, FILES, FORCE, INCLUDE_GIT_DIR, PROMPT_FILE

if TYPE_CHECKING:
    from oraculum.service.caller import Caller

__all__ = ["council_command", "show_council"]

CouncilAction = Literal["status", "read", "wait", "cancel"]


def show_council(ref: str, action: CouncilAction, *, timeout: float | None = None) -> int:
    """Print the council ``ref`` names for ``action``; the exit code (wait: 6 when no member
    answered)."""
    from oraculum.service import council as service

    if action == "cancel":
        result = service.cancel_council(ref)
    elif action == "read":
        result = service.read_council(ref)
    elif action == "wait":
        result = service.wait_council(ref, timeout_s=timeout if timeout is not None else 86_400)
    else:
        result = service.council_result(ref)
    emit(result.to_json(), text=result.text("cli"))
    if action == "wait" and not any(j["status"] == "complete" for j in result.jobs.values()):
        return 6
    return 0


def _deadline(value: str | None) -> float | None:
    """`90`, `90s`, `30m`, `2h` as seconds."""
    if value is None:
        return None
    from oraculum.core.errors import ErrorCode, OracleError

    units = {"s": 1, "m": 60, "h": 3600}
    text = value.strip().lower()
    scale = units.get(text[-1:])
    number = text[:-1] if scale else text
    try:
        seconds = float(number) * (scale or 1)
    except ValueError:
        seconds = -1
    if seconds <= 0:
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            f"--deadline takes a duration such as 90s, 30m or 2h, not {value!r}.",
            rejected_value=value,
        )
    return seconds


@click.command(
    "council",
    cls=Command,
    examples=(
        'oraculum council -p "Is this design sound?" --members chatgpt:pro,grok:heavy src/',
        'oraculum council -p "Which fix?" --members chatgpt:pro_extended,grok:heavy '
        "--synthesize chatgpt:thinking_heavy --deadline 90m",
        'oraculum council -p "Why?" --members chatgpt:pro_extended,grok:heavy --dry-run',
    ),
)
@FILES
@click.option("-p", "--prompt", metavar="PROMPT", help="The question every member is asked.")
@PROMPT_FILE
@click.option(
    "--members",
    required=True,
    metavar="P:PRESET,…",
    help="Comma-separated provider:preset members, e.g. chatgpt:pro_extended,grok:heavy.",
)
@click.option(
    "--synthesize",
    metavar="P:PRESET",
    help="Once the members end, ask this one for agreements, disagreements and a "
    "recommendation; its answer tops council.md.",
)
@click.option(
    "--deadline",
    metavar="DURATION",
    help="Wake the session at this age (90s, 30m, 2h) with whatever has ended.",
)
@CALLER
@INCLUDE_GIT_DIR
@ALLOW_ANY_DIR
@DRY_RUN
@FORCE
def council_command(
    files: tuple[str, ...],
    prompt: str | None,
    prompt_file: str | None,
    members: str,
    synthesize: str | None,
    deadline: str | None,
    caller: Caller,
    include_git_dir: bool,
    allow_any_dir: bool,
    dry_run: bool,
    force: bool,
) -> int:
    """Ask several models the same question with the same archive; one wake-up when all end."""
    from oraculum.service.council import council_dry_run, submit_council
    from oraculum.service.prompt import choose_prompt

    text = choose_prompt(prompt, prompt_file)
    inputs = list(files or ["."])
    common: dict[str, Any] = {
        "caller": caller,
        "synthesize": synthesize,
        "include_git_dir": include_git_dir,
        "allow_any_dir": allow_any_dir,
    }
    if dry_run:
        dry = council_dry_run(text, members, inputs, **common)
        emit(dry.to_json(), text=dry.text("cli"))
        return 0
    result = submit_council(
        text, members, inputs, deadline_s=_deadline(deadline), force=force, **common
    )
    emit(result.to_json(), text=result.text("cli"))
    return 0
