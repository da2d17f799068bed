"""`followup`: a new job in the same provider thread as a completed one."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from oraculum.service.caller import Caller
from oraculum.service.dryrun import DryRunResult, dry_run
from oraculum.service.submit import SubmitResult, submit

__all__ = ["followup"]


def followup(
    job_ref: str,
    prompt: str,
    inputs: list[str],
    *,
    caller: Caller | None = None,
    preset: str | None = None,
    request_source: str = "cli",
    selection_extras: dict[str, Any] | None = None,
    include_git_dir: bool = False,
    allow_any_dir: bool = False,
    progress: Callable[[int], None] | None = None,
    force: bool = False,
    dry: bool = False,
) -> SubmitResult | DryRunResult:
    """Submit ``prompt`` (with an archive of ``inputs``) as a follow-up to ``job_ref``; with
    ``dry``, only say what would be sent (service.dryrun)."""
    # The same request either way; a dry run only says what it would send.
    send = partial(dry_run) if dry else partial(submit, request_source=request_source, force=force)
    result: SubmitResult | DryRunResult = send(
        prompt,
        inputs,
        caller=caller,
        preset=preset,
        follow_up_job=job_ref,
        selection_extras=selection_extras,
        include_git_dir=include_git_dir,
        allow_any_dir=allow_any_dir,
        progress=progress,
    )
    return result
