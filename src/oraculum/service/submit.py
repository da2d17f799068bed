"""`submit`: validate → archive → admit → spawn → the job summary.

Everything that can refuse runs before the archive is built, so a refusal costs nothing and
leaves no job directory. The archive is built in the submit's own staging directory on the
jobs filesystem (so admission's move is a rename), removed on any error; what killed submits
left there is swept first.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oraculum.core.config import Config
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.providers import ProviderSpec, provider_spec
from oraculum.core.surface import Surface, tool_call
from oraculum.jobs.admission import JobRequest, submit_job
from oraculum.jobs.duplicates import submission_digest
from oraculum.jobs.ids import given_job_ref, new_job_id
from oraculum.jobs.model import Job, Status
from oraculum.jobs.reconcile import reconcile
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.common import (
    TEST_PROVIDER,
    ProviderChoice,
    check_prerequisites,
    choose_provider,
)
from oraculum.service.prompt import check_prompt_size, prompt_text
from oraculum.service.status import selection_words
from oraculum.service.summary import job_summary

if TYPE_CHECKING:  # the archive package loads lazily (see build_planned)
    from oraculum.archive import ArchiveResult

__all__ = [
    "RESEARCH_ANSWER_MAX_CHARS",
    "SubmitPlan",
    "SubmitResult",
    "archive_facts",
    "archive_lines",
    "build_planned",
    "check_follow_up",
    "job_request",
    "make_room",
    "plan_submit",
    "pruned_lines",
    "research_answer_extras",
    "submit",
    "submit_message",
]


@dataclass(frozen=True)
class SubmitResult:
    """The admitted job (submit and followup): its summary (see service.summary) with what its
    archive holds (``archive``, ``autoPrunedArchivePaths``)."""

    job: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"job": self.job, "message": submit_message(self.job)}

    def text(self, surface: Surface, *, wakeup: str | None = None) -> str:
        """The CLI's is the upstream submit text; an agent gets the same facts, briefly, and
        where its wake-up comes from: ``wakeup`` for a host that delivers it itself (the pi
        bridge starts a turn with it), else a later tool result or the long poll."""
        if surface == "cli":
            return "\n".join([*_agent_lines(self.job), *_follow_lines(self.job)])
        return "\n".join([*_agent_lines(self.job), _stop_line(self.job, wakeup)])


def _follow_lines(job: dict[str, Any]) -> list[str]:
    """How a person follows the job from a shell (the agent's "stop now" is not for them)."""
    job_id = job["id"]
    return [
        f"Answer file (once saved): {job['responsePath']}",
        f"Follow it with `oraculum status {job_id}` or `oraculum wait {job_id}`; "
        f"then `oraculum read {job_id}`.",
    ]


def _stop_line(job: dict[str, Any], wakeup: str | None) -> str:
    if wakeup is not None:
        return f"Stop now: {wakeup}."
    wait = tool_call("oracle_wait", {"jobId": job["id"]})
    return (
        "Stop now: the completion wake-up arrives in a later oracle tool result "
        f"(or call {wait}, at most 50 s per call)."
    )


def _agent_lines(job: dict[str, Any]) -> list[str]:
    queued = job["status"] == Status.QUEUED.value
    went = "queued" if queued else "dispatched"
    lines = [f"Oracle job {job['id']} {went} ({selection_words(job)})."]
    position = job.get("queue", {}).get("position")
    if queued and position:
        lines.append(f"Queue position {position} of {job['queue']['depth']}; it starts by itself.")
    if job.get("followUpToJobId"):
        lines.append(f"Follow-up to job {job['followUpToJobId']}.")
    return lines + archive_lines(job) + pruned_lines(job)


def pruned_lines(job: dict[str, Any]) -> list[str]:
    """What was pruned from the archive to fit its ceiling, if anything."""
    pruned = job.get("autoPrunedArchivePaths") or []
    if not pruned:
        return []
    names = ", ".join(p["relativePath"] for p in pruned)
    return [f"Auto-pruned to fit the size limit: {names}."]


# How many exclusion reasons a submit names (the most frequent first).
TOP_EXCLUDED = 3


def archive_lines(job: dict[str, Any]) -> list[str]:
    """What the job's archive holds and the top reasons files were left out, for people and
    agents alike (issue 38: a submit always says what it sends)."""
    archive = job.get("archive") or {}
    if not archive:
        return []
    count = archive["fileCount"]
    lines = [
        f"Archive: {count} file{'' if count == 1 else 's'}, {archive['bytes'] / 2**20:.2f} MiB."
    ]
    excluded = archive.get("excluded") or []
    if excluded:
        top = "; ".join(
            f"{row['reason']} ({', '.join(row['examples'][:2])}"
            + (f" and {row['paths'] - 2} more" if row["paths"] > 2 else "")
            + ")"
            for row in excluded[:TOP_EXCLUDED]
        )
        more = len(excluded) - TOP_EXCLUDED
        lines.append(f"Left out: {top}" + (f"; {more} more reasons." if more > 0 else "."))
    return lines


def check_follow_up(store: JobStore, job_ref: str) -> Job:
    """The completed job a follow-up continues, of any project (its id names it from
    anywhere); the follow-up itself belongs to, and archives from, the project where it is
    asked, as every submit."""
    try:
        job = store.load(store.resolve(job_ref))
    except OracleError as error:
        if error.code != ErrorCode.JOB_NOT_FOUND:
            raise
        raise OracleError(
            ErrorCode.FOLLOW_UP_JOB_NOT_FOUND,
            f"Follow-up job not found: {job_ref}",
            rejected_value=job_ref,
            suggested_next_step="Run `oraculum status --all-projects` to list job ids.",
        ) from None
    # A Deep Research job that stopped at a clarifying question is answered by a follow-up.
    if job.status != Status.COMPLETE and job.error_code != ErrorCode.DEEP_RESEARCH_NEEDS_ANSWER:
        raise OracleError(
            ErrorCode.FOLLOW_UP_JOB_NOT_COMPLETE,
            f"Oracle job {job.id} is {job.status.value}; only a complete job can be followed up.",
            rejected_value=job.id,
            suggested_next_step="Wait for it to finish, or submit a new job instead.",
        )
    if not job.chat_url and job.provider != TEST_PROVIDER:  # a dry run has no thread to continue
        raise OracleError(
            ErrorCode.FOLLOW_UP_JOB_MISSING_CHAT_URL,
            f"Oracle job {job.id} has no saved conversation URL to continue.",
            rejected_value=job.id,
            suggested_next_step="Submit a new job instead of a follow-up.",
        )
    return job


def _conversation_from(value: str, spec: ProviderSpec) -> str:
    conversation_id = spec.parse_conversation(value)
    if conversation_id is None:
        raise OracleError(
            ErrorCode.INVALID_CHATGPT_CONVERSATION_ID,
            f"Not a {spec.label} conversation id or URL: {value}",
            rejected_value=value,
            suggested_next_step="Pass the id from https://chatgpt.com/c/<id>, or the whole URL.",
        )
    return conversation_id


def _thread_target(
    prior: Job | None, conversation: str | None, provider: str, config: Config
) -> tuple[str | None, str | None]:
    """(chat URL, conversation id) of the thread the job continues, if any."""
    if conversation is None:
        if prior is None:
            return None, None
        return prior.chat_url, prior.conversation_id
    spec = provider_spec(provider)
    if not spec.explicit_threads:
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            f"--conversation targets a ChatGPT thread; {spec.label} jobs continue with "
            "--follow-up.",
            rejected_value=conversation,
        )
    conversation_id = _conversation_from(conversation, spec)
    if prior is not None and prior.conversation_id not in (None, conversation_id):
        raise OracleError(
            ErrorCode.ORACLE_THREAD_TARGET_CONFLICT,
            f"Follow-up job {prior.id} continues conversation {prior.conversation_id}, "
            f"not {conversation_id}.",
            rejected_value=conversation,
            suggested_next_step="Pass either the follow-up job or the conversation, not both.",
        )
    if prior is not None and prior.chat_url:
        return prior.chat_url, conversation_id
    chat_url, _ = spec.urls(config.browser)
    return spec.conversation_url(chat_url, conversation_id), conversation_id


@dataclass(frozen=True)
class SubmitPlan:
    """What a submit decided before building its archive: every refusal that costs nothing
    has run. A real submit goes on to admission; a dry run (service.dryrun) stops here."""

    prompt: str
    root: Path
    config: Config
    session_id: str | None
    store: JobStore
    prior: Job | None
    choice: ProviderChoice
    chat_url: str | None
    conversation_id: str | None
    requested_provider: str | None  # as given, before normalising (None: not given)
    requested_preset: str | None
    cwd: Path | None = None  # where the inputs were named from (None: the current directory)

    def digest(self, archive_sha256: str) -> str:
        """The duplicate guard's key for this request with that archive."""
        thread = self.prior.id if self.prior is not None else self.conversation_id
        return submission_digest(
            self.prompt, archive_sha256, self.choice.provider, self.choice.selection, thread=thread
        )


def plan_submit(
    prompt: str,
    inputs: list[str],
    *,
    caller: Caller | None = None,
    preset: str | None = None,
    provider: str | None = None,
    follow_up_job: str | None = None,
    conversation: str | None = None,
    selection_extras: dict[str, Any] | None = None,
    allow_any_dir: bool = False,
) -> SubmitPlan:
    """Validate a submit up to (not including) its archive; raises what a submit refuses.
    ``caller`` says from where, for which session, with which config overrides and store
    (default: this directory, $ORACULUM_SESSION, the files' config, the default store)."""
    caller = caller or Caller()
    prompt = prompt_text(prompt)
    follow_up_job = given_job_ref(follow_up_job)
    session_id = caller.session_id("submit oracle jobs")
    root = caller.root
    from oraculum.archive.scope import check_archive_scope  # the archive package loads lazily

    check_archive_scope(root, inputs, allow_any_dir=allow_any_dir)
    config = caller.config
    store = caller.store
    prior = check_follow_up(store, follow_up_job) if follow_up_job is not None else None
    choice = choose_provider(
        provider or (prior.provider if prior else None), preset, config, selection_extras
    )
    _check_choice(prior, choice)
    check_prompt_size(prompt, choice.provider)
    chat_url, conversation_id = _thread_target(prior, conversation, choice.provider, config)
    check_prerequisites(config, choice.provider)
    return SubmitPlan(
        prompt=prompt,
        root=root,
        config=config,
        session_id=session_id,
        store=store,
        prior=prior,
        choice=choice,
        chat_url=chat_url,
        conversation_id=conversation_id,
        requested_provider=provider,
        requested_preset=preset,
        cwd=caller.cwd,
    )


def submit(
    prompt: str,
    inputs: list[str],
    *,
    caller: Caller | None = None,
    preset: str | None = None,
    provider: str | None = None,
    follow_up_job: str | None = None,
    conversation: str | None = None,
    request_source: str = "cli",
    selection_extras: dict[str, Any] | None = None,
    include_git_dir: bool = False,
    allow_any_dir: bool = False,
    progress: Callable[[int], None] | None = None,
    force: bool = False,
) -> SubmitResult:
    """Create one job and hand it to a worker (or the queue).

    ``caller.overrides`` is the explicit-arguments config layer (it wins over every file).
    ``allow_any_dir`` lets `.` archive a root that is no project (``archive_scope_unsafe``
    otherwise); ``progress`` is told how many entries the archive's selection has looked at.
    ``force`` sends it even while an identical job is queued or running (``duplicate_job``
    otherwise)."""
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
    store = plan.store
    make_room(store)
    # On success admission moved the archive into the job directory; on failure it must not
    # linger: the staging area goes either way.
    with store.staging_area() as staging:
        archive = build_planned(plan, inputs, staging, include_git_dir, progress)
        job = submit_job(job_request(plan, archive, request_source, force=force), store=store)
    return _submitted(store.load(job.id), archive)


def job_request(
    plan: SubmitPlan, archive: ArchiveResult, request_source: str, *, force: bool
) -> JobRequest:
    """What admission is asked to admit: the plan with its built archive."""
    return JobRequest(
        project_root=plan.root,
        prompt=plan.prompt,
        provider=plan.choice.provider,
        selection=plan.choice.selection,
        options=plan.choice.options,
        config=plan.config,
        archive=archive.path,
        archive_sha256=archive.sha256,
        archive_bytes=archive.size,
        session_id=plan.session_id,
        request_source=request_source,
        follow_up_to_job_id=plan.prior.id if plan.prior else None,
        chat_url=plan.chat_url,
        conversation_id=plan.conversation_id,
        submission_digest=plan.digest(archive.sha256),
        force=force,
    )


def make_room(store: JobStore) -> None:
    """Finish what crashed first (a stale job must not hold capacity this job could use) and
    sweep the staging a killed submit left."""
    with contextlib.suppress(OracleError):
        reconcile(store)
    store.sweep_staging()


RESEARCH_ANSWER_MAX_CHARS = 20_000


def research_answer_extras(text: str | None) -> dict[str, Any] | None:
    """The selection extras (``submit(selection_extras=…)``) that carry a Deep Research job's
    reply to a clarifying question, should one come (`--research-answer`)."""
    if text is None:
        return None
    if not text.strip() or len(text) > RESEARCH_ANSWER_MAX_CHARS:
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            f"--research-answer must be non-blank and at most {RESEARCH_ANSWER_MAX_CHARS} "
            "characters.",
            rejected_value=text[:80],
        )
    return {"research_answer": text.strip()}


def _check_choice(prior: Job | None, choice: ProviderChoice) -> None:
    """A follow-up stays on its job's provider; a research answer needs deep_research."""
    _check_same_provider(prior, choice.provider)
    if "research_answer" in choice.options and choice.selection.tool != "deep_research":
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            "--research-answer applies only to the deep_research preset.",
            suggested_next_step="Add --preset deep_research, or drop --research-answer.",
        )


def _check_same_provider(prior: Job | None, provider: str) -> None:
    """A follow-up stays on its job's provider."""
    if prior is not None and prior.provider != provider:
        raise OracleError(
            ErrorCode.ORACLE_THREAD_TARGET_CONFLICT,
            f"Follow-up job {prior.id} ran on {prior.provider}, not {provider}.",
            rejected_value=provider,
            suggested_next_step="Omit --provider for a follow-up.",
        )


def build_planned(
    plan: SubmitPlan,
    inputs: list[str],
    staging: Path,
    include_git_dir: bool,
    progress: Callable[[int], None] | None,
) -> ArchiveResult:
    """The job's archive, built into ``staging`` under the provider's format and ceiling."""
    # The archive builder (pathspec, zstandard) loads here, not with this module: `preflight`
    # imports this module for `check_follow_up` and never builds an archive.
    from oraculum.archive import build_archive
    from oraculum.archive.inputs import from_cwd

    config, provider = plan.config, plan.choice.provider
    return build_archive(
        plan.root,
        from_cwd(plan.root, plan.cwd, inputs),  # as the shell means them: from where asked
        staging,
        new_job_id(),  # names the staged archive only: admission assigns the job's id
        provider,  # its registry entry says the format and the ceiling
        level=config.archive.zstd_level,
        threads=config.archive.threads,
        timeout_s=config.archive.timeout_ms / 1000,
        max_bytes=config.archive_max_bytes(provider),
        include_git_dir=include_git_dir,  # naming `.git` is refused without it
        progress=progress,
    )


def _submitted(job: Job, archive: ArchiveResult) -> SubmitResult:
    """The submit response: the admitted job's summary with what its archive holds."""
    return SubmitResult(job_summary(job) | archive_facts(archive))


def archive_facts(archive: ArchiveResult) -> dict[str, Any]:
    """What an archive holds, as a submit's (and a dry run's) JSON shows it."""
    return {
        "autoPrunedArchivePaths": [p.to_dict() for p in archive.pruned_paths],
        "archive": {
            "bytes": archive.size,
            "fileCount": archive.file_count,
            "initialBytes": archive.initial_size,
            "limitBytes": archive.limit_bytes,
            "excluded": archive.excluded,  # grouped by reason, most paths first
        },
    }


def submit_message(summary: dict[str, Any]) -> str:
    """The upstream submit response text."""
    queue = summary.get("queue", {})
    queued = summary["status"] == Status.QUEUED.value
    lines = [f"Oracle job {'queued' if queued else 'dispatched'}: {summary['id']}"]
    if queued and queue.get("position"):
        lines.append(f"Queue position: {queue['position']} of {queue['depth']}")
    if summary.get("followUpToJobId"):
        lines.append(f"Follow-up to: {summary['followUpToJobId']}")
    lines += [f"Prompt: {summary['promptPath']}", f"Archive: {summary['archivePath']}"]
    lines += archive_lines(summary)
    pruned = summary.get("autoPrunedArchivePaths") or []
    if pruned:
        names = ", ".join(p["relativePath"] for p in pruned)
        lines.append(f"Auto-pruned from the archive to fit the size limit: {names}")
    lines.append(f"Response will be written to: {summary['responsePath']}")
    if summary.get("lastEvent"):
        event = summary["lastEvent"]
        lines.append(f"Last event: {event['at']} [{event['source']}] {event['message']}")
    if queued:
        lines.append("The job will start automatically when capacity is available.")
    lines.append(
        "Stop now and wait for the oracle completion wake-up "
        f"(or block on it with `oraculum wait {summary['id']}`)."
    )
    return "\n".join(lines)
