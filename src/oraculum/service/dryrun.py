"""`submit --dry-run` / `followup --dry-run`: everything a submit would send, and nothing sent.

The same checks as a real submit run (so bad input gets the same codes), and the archive is
built exactly as the job would upload it, but in a temporary directory outside the jobs
directory that is removed at once: no job, no index entry, no staging, no browser. What is
left is a report: the prompt as it will be typed, the provider and preset (and what they
were normalised from), the archive's contents, an estimated token count and the capacity line.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from oraculum.core.surface import Surface
from oraculum.jobs.admission import Capacity, capacity
from oraculum.jobs.duplicates import find_duplicate
from oraculum.service.caller import Caller
from oraculum.service.submit import (
    SubmitPlan,
    archive_facts,
    archive_lines,
    build_planned,
    plan_submit,
    pruned_lines,
)

if TYPE_CHECKING:
    from oraculum.archive import ArchiveResult

__all__ = [
    "BYTES_PER_TOKEN",
    "ESTIMATE_RULE",
    "DryRunResult",
    "dry_run",
    "estimated_tokens",
    "planned_dry_run",
]

# The token estimate needs no tokenizer download: English prose and code average about four
# bytes of UTF-8 per token in the GPT-4/GPT-5 and Grok tokenizers. It is an estimate only;
# binary files in the archive are counted as if they were text.
BYTES_PER_TOKEN: Final = 4
ESTIMATE_RULE: Final = "UTF-8 bytes / 4, rounded up; archive files counted uncompressed"


def estimated_tokens(prompt: str, archive_bytes: int) -> dict[str, Any]:
    """The estimate for a prompt and an archive of ``archive_bytes`` uncompressed file bytes."""
    prompt_tokens = math.ceil(len(prompt.encode("utf-8")) / BYTES_PER_TOKEN)
    archive_tokens = math.ceil(archive_bytes / BYTES_PER_TOKEN)
    return {
        "prompt": prompt_tokens,
        "archive": archive_tokens,
        "total": prompt_tokens + archive_tokens,
        "rule": ESTIMATE_RULE,
    }


@dataclass(frozen=True)
class DryRunResult:
    """What a submit would send. ``provider`` and ``preset`` are ``{chosen, requested, from}``
    (``from``: ``argument``, ``follow-up job`` or ``config default``)."""

    prompt: str
    provider: dict[str, Any]
    preset: dict[str, Any]
    selection: dict[str, Any]
    archive: dict[str, Any]  # archive_facts(): `archive` and `autoPrunedArchivePaths`
    estimated_tokens: dict[str, Any]
    capacity: Capacity
    follow_up_to_job_id: str | None = None
    conversation_id: str | None = None
    duplicate_of: str | None = None  # an identical job queued or running (duplicate_job)

    def to_json(self) -> dict[str, Any]:
        """``{"dryRun": {…}}``: a submit's answer is ``{"job"}``, a dry run's this (no job)."""
        return {"dryRun": self.facts()}

    def facts(self) -> dict[str, Any]:
        shown: dict[str, Any] = {
            "prompt": self.prompt,
            "provider": self.provider,
            "preset": self.preset,
            "selection": self.selection,
            **self.archive,
            "estimatedTokens": self.estimated_tokens,
            "capacity": {
                "active": self.capacity.active,
                "maxActive": self.capacity.max_active,
                "queued": self.capacity.queued,
                "maxQueued": self.capacity.max_queued,
            },
            "capacityLine": self.capacity.line(),
        }
        optional = {
            "followUpToJobId": self.follow_up_to_job_id,
            "conversationId": self.conversation_id,
            "duplicateOf": self.duplicate_of,
        }
        shown.update({key: value for key, value in optional.items() if value is not None})
        return shown

    def text(self, surface: Surface) -> str:
        tokens = self.estimated_tokens
        lines = [
            "Dry run: nothing was sent and no job was created.",
            f"Provider: {_choice_words(self.provider)}; preset: {_choice_words(self.preset)}.",
        ]
        if self.follow_up_to_job_id:
            lines.append(f"Follow-up to job {self.follow_up_to_job_id}.")
        if self.conversation_id:
            lines.append(f"Continues conversation {self.conversation_id}.")
        lines += archive_lines(self.archive) + pruned_lines(self.archive)
        lines.append(
            f"Estimated tokens: prompt {tokens['prompt']}, archive {tokens['archive']}, total "
            f"{tokens['total']} (an estimate: {tokens['rule']})."
        )
        lines.append(self.capacity.line())
        if self.duplicate_of:
            force = "--force" if surface == "cli" else "force: true"
            lines.append(
                f"A submit now would be refused (duplicate_job): identical job "
                f"{self.duplicate_of} is queued or running; {force} sends it again."
            )
        lines += ["Prompt as it will be typed:", self.prompt]
        return "\n".join(lines)


def _choice_words(choice: dict[str, Any]) -> str:
    """`pro_extended (configured default)`, `chatgpt (from "ChatGPT", argument)`."""
    chosen = choice["chosen"] or "none"
    requested = choice["requested"]
    if requested is not None and requested != chosen:
        return f'{chosen} (from "{requested}", {choice["from"]})'
    return f"{chosen} ({choice['from']})"


def dry_run(
    prompt: str,
    inputs: list[str],
    *,
    caller: Caller | None = None,
    preset: str | None = None,
    provider: str | None = None,
    follow_up_job: str | None = None,
    conversation: str | None = None,
    selection_extras: dict[str, Any] | None = None,
    include_git_dir: bool = False,
    allow_any_dir: bool = False,
    progress: Callable[[int], None] | None = None,
) -> DryRunResult:
    """What :func:`oraculum.service.submit.submit` with these arguments would send."""
    plan = plan_submit(
        prompt,
        inputs,
        caller=caller,
        preset=preset,
        provider=provider,
        follow_up_job=follow_up_job,
        conversation=conversation,
        selection_extras=selection_extras,
        allow_any_dir=allow_any_dir,
    )
    import tempfile  # here: a command line that never dry-runs does not load it

    with tempfile.TemporaryDirectory(prefix="oraculum-dry-run-") as staging:
        archive = build_planned(plan, inputs, Path(staging), include_git_dir, progress)
    return planned_dry_run(plan, archive)


def planned_dry_run(plan: SubmitPlan, archive: ArchiveResult) -> DryRunResult:
    """What ``plan`` would send with ``archive`` (a council's members share one archive)."""
    duplicate = find_duplicate(plan.store, plan.digest(archive.sha256))
    return DryRunResult(
        prompt=plan.prompt,
        provider=_provider_choice(plan),
        preset=_preset_choice(plan),
        selection=plan.choice.selection.to_json_dict(),
        archive=archive_facts(archive),
        estimated_tokens=estimated_tokens(plan.prompt, archive.uncompressed_bytes),
        capacity=capacity(plan.store, plan.config),
        follow_up_to_job_id=plan.prior.id if plan.prior else None,
        conversation_id=plan.conversation_id,
        duplicate_of=duplicate.id if duplicate else None,
    )


def _provider_choice(plan: SubmitPlan) -> dict[str, Any]:
    if plan.requested_provider is not None:
        source = "argument"
    elif plan.prior is not None:
        source = "follow-up job"
    else:
        source = "config default"
    return {
        "chosen": plan.choice.provider,
        "requested": plan.requested_provider,
        "from": source,
    }


def _preset_choice(plan: SubmitPlan) -> dict[str, Any]:
    selection = plan.choice.selection
    chosen = selection.preset or selection.mode
    if plan.requested_preset is not None:
        source = "argument"
    else:  # the test provider has none unless one is given
        source = "config default" if chosen is not None else "none for this provider"
    return {"chosen": chosen, "requested": plan.requested_preset, "from": source}
