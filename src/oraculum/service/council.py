"""`council`: one question to several members (issue 43 §1), each an ordinary job, one wake-up.

Every member is planned as a submit is (so bad input is refused with the same checks, before
anything is sent); the archive is built once per archive format and hard-linked into each
member's staging (admission moves it into the job's directory). Members are admitted like any
job — they queue at capacity, run and fail independently — and carry the council's id, which
keeps the session pollers from waking anyone about them (sessions.claims.wants_wakeup).

Whoever next looks at the council once its last member has ended (a poller's scan, `status`,
`read` or `wait` of the council) advances it under the council's lock: it submits the
synthesis, if asked for, and once that has ended too writes `council.md` and posts the one
notice (tasks.notices) every poller delivers. A deadline ends the council with whatever ended.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.providers import provider_spec
from oraculum.core.surface import Surface, tool_call
from oraculum.jobs.admission import JobRequest, submit_job
from oraculum.jobs.cancel import cancel_job
from oraculum.jobs.councils import Council, CouncilMember, CouncilStore, member_facts
from oraculum.jobs.ids import new_council_id, new_job_id, validate_council_id
from oraculum.jobs.model import Job, Status, utc_now
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.dryrun import DryRunResult, planned_dry_run
from oraculum.service.submit import SubmitPlan, build_planned, job_request, make_room, plan_submit
from oraculum.tasks.notices import NoticeStore, Owner, post_notice

if TYPE_CHECKING:  # the archive package loads lazily (service.submit.build_planned)
    from oraculum.archive import ArchiveResult

__all__ = [
    "COUNCIL_SOURCE",
    "CouncilDryRun",
    "CouncilResult",
    "advance_council",
    "advance_open_councils",
    "cancel_council",
    "council_dry_run",
    "council_result",
    "read_council",
    "submit_council",
    "wait_council",
]

log = logging.getLogger("oraculum.council")

COUNCIL_SOURCE = "council"  # the request source of a council's member jobs
NOTICE_KIND = "council"
# The provider:preset codes planning raises that mean "no such member".
_UNKNOWN = frozenset(
    {ErrorCode.INVALID_PROVIDER, ErrorCode.INVALID_PRESET, ErrorCode.INVALID_ARGUMENT}
)
_NOT_SIGNED_IN_PREFIX = "auth_seed_profile_"
SYNTHESIS_FILE = "council-answers.md"
SYNTHESIS_PROMPT = (
    "Several models were asked the same question; their answers are in the attached file "
    f"{SYNTHESIS_FILE}. Compare them: list where they agree, where they disagree (and which "
    "side the evidence favours), and finish with your recommendation. The question was:\n\n"
)


# Planning ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Member:
    name: str  # provider:preset as normalised
    plan: SubmitPlan


def split_members(members: str | list[str]) -> list[str]:
    """`chatgpt:pro_extended,grok:heavy` (or a list of such) as one name per member."""
    items = members.split(",") if isinstance(members, str) else members
    names = [item.strip() for item in items if item and item.strip()]
    if not names:
        raise OracleError(
            ErrorCode.COUNCIL_MEMBER_UNKNOWN,
            "A council needs at least one member (`provider:preset`, comma-separated).",
            suggested_next_step="Pass --members chatgpt:pro_extended,grok:heavy.",
        )
    return names


def _member_name(plan: SubmitPlan) -> str:
    selection = plan.choice.selection
    chosen = selection.preset or selection.mode
    return f"{plan.choice.provider}:{chosen}" if chosen else plan.choice.provider


def _plan_member(given: str, prompt: str, inputs: list[str], **kwargs: Any) -> _Member:
    provider, _, preset = given.partition(":")
    try:
        plan = plan_submit(prompt, inputs, provider=provider, preset=preset or None, **kwargs)
    except OracleError as error:
        raise _member_error(given, error) from None
    return _Member(_member_name(plan), plan)


def _member_error(given: str, error: OracleError) -> OracleError:
    """A member's planning refusal, named as the council's (the cause kept in details)."""
    cause = {"member": given, "cause": error.code.value, "causeMessage": error.message}
    if error.code in _UNKNOWN:
        return OracleError(
            ErrorCode.COUNCIL_MEMBER_UNKNOWN,
            f"Unknown council member {given!r}: {error.message}",
            rejected_value=given,
            allowed_values=error.allowed_values,
            suggested_next_step="Name each member as provider:preset, e.g. chatgpt:pro_extended "
            "or grok:heavy; `oraculum presets` lists them.",
            details=cause,
        )
    if error.code.value.startswith(_NOT_SIGNED_IN_PREFIX):
        return OracleError(
            ErrorCode.COUNCIL_MEMBER_NOT_SIGNED_IN,
            f"Council member {given!r} is not signed in; nothing was sent. {error.message}",
            rejected_value=given,
            suggested_next_step=error.suggested_next_step,
            details=cause,
        )
    return error


def plan_council(
    prompt: str,
    members: str | list[str],
    inputs: list[str],
    *,
    synthesize: str | None = None,
    member_extras: dict[str, dict[str, Any]] | None = None,
    **kwargs: Any,
) -> tuple[list[_Member], _Member | None]:
    """Every member (and the synthesis) planned; raises the first refusal, before anything is
    built or sent. ``member_extras`` (library only) gives a member, by its name as given,
    the job options a submit's ``selection_extras`` would."""
    planned: list[_Member] = []
    for given in split_members(members):
        extras = (member_extras or {}).get(given)
        member = _plan_member(given, prompt, inputs, selection_extras=extras, **kwargs)
        if any(other.name == member.name for other in planned):
            raise OracleError(
                ErrorCode.COUNCIL_MEMBER_DUPLICATE,
                f"Council member {member.name} is named twice.",
                rejected_value=given,
                suggested_next_step="Name each provider:preset once.",
            )
        planned.append(member)
    synthesis = None
    if synthesize is not None:
        extras = (member_extras or {}).get(synthesize)
        synthesis = _plan_member(synthesize, prompt, [], selection_extras=extras, **kwargs)
    return planned, synthesis


def _archive_groups(members: list[_Member]) -> dict[tuple[str, int], list[_Member]]:
    """Members by archive format (and ceiling): one archive serves each group."""
    groups: dict[tuple[str, int], list[_Member]] = {}
    for member in members:
        provider = member.plan.choice.provider
        key = (
            provider_spec(provider).archive_suffix,
            member.plan.config.archive_max_bytes(provider),
        )
        groups.setdefault(key, []).append(member)
    return groups


# The dry run ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class CouncilDryRun:
    members: list[tuple[str, DryRunResult]]
    archives: list[dict[str, Any]]  # one per format: which members share it and what it holds
    synthesize: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "dryRun": {
                "council": True,
                "archives": self.archives,
                "members": [{"member": name, **dry.facts()} for name, dry in self.members],
                "synthesize": self.synthesize,
            }
        }

    def text(self, surface: Surface) -> str:
        lines = [
            f"Dry run of a council of {len(self.members)}: nothing was sent and no job was created."
        ]
        for archive in self.archives:
            facts = archive["archive"]
            lines.append(
                f"Archive {archive['format']} (built once, shared by "
                f"{', '.join(archive['members'])}): {facts['fileCount']} files, "
                f"{facts['bytes'] / 2**20:.2f} MiB."
            )
        for name, dry in self.members:
            lines += ["", f"== {name} ==", *_without_prompt(dry.text(surface))]
        if self.synthesize:
            lines += ["", f"Once the members end, {self.synthesize} is asked for a synthesis."]
        lines += ["", "Prompt as it will be typed (every member):", self.members[0][1].prompt]
        return "\n".join(lines)


def _without_prompt(text: str) -> list[str]:
    """A member's dry-run lines up to its prompt (the council shows the prompt once)."""
    lines = text.splitlines()[1:]  # its own "nothing was sent" line too
    marker = "Prompt as it will be typed:"
    return lines[: lines.index(marker)] if marker in lines else lines


def council_dry_run(
    prompt: str,
    members: str | list[str],
    inputs: list[str],
    *,
    synthesize: str | None = None,
    include_git_dir: bool = False,
    **kwargs: Any,
) -> CouncilDryRun:
    import tempfile  # here: a command line that never dry-runs does not load it

    planned, _ = plan_council(prompt, members, inputs, synthesize=synthesize, **kwargs)
    results: dict[str, DryRunResult] = {}
    archives = []
    for (suffix, _limit), group in _archive_groups(planned).items():
        with tempfile.TemporaryDirectory(prefix="oraculum-dry-run-") as staging:
            archive = build_planned(group[0].plan, inputs, Path(staging), include_git_dir, None)
        for member in group:
            results[member.name] = planned_dry_run(member.plan, archive)
        facts = results[group[0].name].archive
        archives.append(
            {"format": suffix, "members": [m.name for m in group], "archive": facts["archive"]}
        )
    return CouncilDryRun([(m.name, results[m.name]) for m in planned], archives, synthesize)


# Submitting ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CouncilResult:
    """A council's state: its record and each member job's summary."""

    council: dict[str, Any]
    jobs: dict[str, dict[str, Any]]  # job id -> summary
    markdown_path: str
    markdown: str | None = None  # read: council.md (or what has ended so far)

    def to_json(self) -> dict[str, Any]:
        shown = {"council": self.council, "jobs": self.jobs, "markdownPath": self.markdown_path}
        if self.markdown is not None:
            shown["markdown"] = self.markdown
        return shown

    def text(self, surface: Surface, *, wakeup: str | None = None) -> str:
        """``wakeup``: where the wake-up comes from for a host that delivers it itself (the
        pi bridge starts a turn with it), as a submit says it."""
        if self.markdown is not None:
            return self.markdown
        return "\n".join(_status_lines(self, surface, wakeup))


def _status_lines(result: CouncilResult, surface: Surface, wakeup: str | None) -> list[str]:
    council = result.council
    cid = council["id"]
    ended = council.get("endedAt") is not None
    lines = [f"Council {cid}: {'ended' if ended else 'running'}."]
    entries = list(council["members"])
    if council.get("synthesis"):
        entries.append(
            {**council["synthesis"], "name": f"{council['synthesis']['name']} (synthesis)"}
        )
    for member in entries:
        job = result.jobs.get(member.get("jobId") or "")
        if job is None:
            lines.append(f"- {member['name']}: not admitted ({member.get('errorCode')}).")
            continue
        words = job["status"]
        if job.get("errorCode"):
            words += f" ({job['errorCode']})"
        position = (job.get("queue") or {}).get("position")
        if job["status"] == Status.QUEUED.value and position:
            words += f", queue position {position}"
        lines.append(f"- {member['name']}: job {job['id']} {words}.")
    if ended:
        read = (
            f"`oraculum read {cid}`"
            if surface == "cli"
            else tool_call("oracle_read", {"jobId": cid})
        )
        lines.append(f"Read every answer with {read}.")
    elif surface == "cli":
        lines.append(
            f"One wake-up comes when every member has ended; or block with "
            f"`oraculum wait {cid}`, then `oraculum read {cid}`."
        )
    elif wakeup is not None:
        lines.append(f"Stop now: {wakeup}, once, when every member has ended.")
    else:
        lines.append(
            "Stop now: one wake-up arrives in a later oracle tool result when every member "
            f"has ended (or call {tool_call('oracle_wait', {'jobId': cid})})."
        )
    return lines


def submit_council(
    prompt: str,
    members: str | list[str],
    inputs: list[str],
    *,
    synthesize: str | None = None,
    deadline_s: float | None = None,
    request_source: str = COUNCIL_SOURCE,
    include_git_dir: bool = False,
    force: bool = False,
    councils: CouncilStore | None = None,
    **kwargs: Any,
) -> CouncilResult:
    """Plan every member, build each archive format once, admit one job per member."""
    planned, synthesis = plan_council(prompt, members, inputs, synthesize=synthesize, **kwargs)
    first = planned[0].plan
    store = first.store
    councils = councils or CouncilStore(store.root)
    make_room(store)
    with contextlib.ExitStack() as stack:
        # Every archive first: one that cannot be built refuses the council before any job.
        built = []
        for group in _archive_groups(planned).values():
            staging = stack.enter_context(store.staging_area())
            archive = build_planned(group[0].plan, inputs, staging, include_git_dir, None)
            built.append((group, staging, archive))
        council = councils.create(_new_council(planned, synthesis, deadline_s, kwargs))
        admitted = _admit_members(built, council.id, store, request_source, force=force)

    def record(current: Council) -> Council:
        updated = [admitted.get(m.name, m) for m in current.members]
        return current.model_copy(update={"members": updated})

    councils.update(council.id, record)
    return council_result(council.id, store=store, councils=councils)


def _new_council(
    planned: list[_Member],
    synthesis: _Member | None,
    deadline_s: float | None,
    kwargs: dict[str, Any],
) -> Council:
    """The council's record as it starts: its members named, none admitted yet."""
    first = planned[0].plan
    now = utc_now()
    return Council(
        id=new_council_id(),
        created_at=now,
        project_id=_project_id(first),
        project_root=str(first.root),
        session_id=first.session_id,
        prompt=first.prompt,
        members=[
            CouncilMember(name=m.name, provider=m.plan.choice.provider, preset=_chosen(m.plan))
            for m in planned
        ],
        deadline_at=now + timedelta(seconds=deadline_s) if deadline_s else None,
        synthesize=synthesis.name if synthesis else None,
        config_overrides=_overrides(kwargs.get("caller")),
    )


def _overrides(caller: Caller | None) -> dict[str, Any] | None:
    """The council's config overrides, kept so that its synthesis runs with them too."""
    return dict(caller.overrides) if caller is not None and caller.overrides else None


def _admit_members(
    built: list[tuple[list[_Member], Path, ArchiveResult]],
    council_id: str,
    store: JobStore,
    request_source: str,
    *,
    force: bool,
) -> dict[str, CouncilMember]:
    admitted: dict[str, CouncilMember] = {}
    for group, staging, archive in built:
        for member in group:
            # Admission moves its archive into the job's directory: each member gets its own
            # name for the one file (a hard link), so the build is not repeated.
            suffix = provider_spec(member.plan.choice.provider).archive_suffix
            link = staging / f"{new_job_id()}{suffix}"
            os.link(archive.path, link)
            request = job_request(
                member.plan, archive._replace(path=link), request_source, force=force
            )
            request.council_id = council_id
            admitted[member.name] = _admit(request, store, member.name)
    return admitted


def _admit(request: JobRequest, store: JobStore, name: str) -> CouncilMember:
    """One member admitted; a refusal (a full queue) fails that member only."""
    base = CouncilMember(
        name=name,
        provider=request.provider,
        preset=request.selection.preset or request.selection.mode,
    )
    try:
        job = submit_job(request, store=store)
    except OracleError as error:
        return base.model_copy(update={"error_code": error.code.value, "error": error.message})
    return base.model_copy(update={"job_id": job.id})


def _chosen(plan: SubmitPlan) -> str | None:
    return plan.choice.selection.preset or plan.choice.selection.mode


def _project_id(plan: SubmitPlan) -> str:
    from oraculum.core.project import project_id

    return project_id(plan.root)


# Advancing: the synthesis, council.md and the one wake-up -----------------------------------


def _jobs(store: JobStore, council: Council) -> dict[str, Job]:
    found = {}
    for job_id in council.job_ids():
        with contextlib.suppress(OracleError):
            found[job_id] = store.load(job_id)
    return found


def _ended(jobs: dict[str, Job], member: CouncilMember) -> bool:
    """A member refused at admission has ended; one not admitted yet (the council is being
    submitted) has not."""
    if member.job_id is None:
        return member.error_code is not None
    job = jobs.get(member.job_id)
    return job is None or job.is_terminal


def advance_council(
    council_id: str,
    *,
    store: JobStore | None = None,
    councils: CouncilStore | None = None,
    now: datetime | None = None,
) -> Council:
    """Move the council on if its members have ended: submit the synthesis, or write
    council.md and post the wake-up. Idempotent; the council's lock makes each step once."""
    store = store or JobStore()
    councils = councils or CouncilStore(store.root)
    moment = now or utc_now()

    def change(council: Council) -> Council | None:
        if council.ended_at is not None:
            return None
        jobs = _jobs(store, council)
        if moment - council.created_at > ADMISSION_GRACE:
            council = _unadmitted(council)  # its submit died before it recorded every job
        members_ended = all(_ended(jobs, m) for m in council.members)
        late = council.deadline_at is not None and moment >= council.deadline_at
        if not members_ended and not late:
            return None
        answered = [m for m in council.members if _answered(jobs, m)]
        wants_synthesis = (
            council.synthesize is not None
            and council.synthesis is None
            and members_ended
            and council.cancel_requested_at is None
            and answered
        )
        if wants_synthesis:
            synthesis = _submit_synthesis(council, jobs, store, councils)
            return council.model_copy(update={"synthesis": synthesis})
        if council.synthesis is not None and not _ended(jobs, council.synthesis) and not late:
            return None
        return _finish(council, jobs, councils, moment, by_deadline=not members_ended)

    return councils.update(validate_council_id(council_id), change)


# Members are admitted within seconds of the record's creation (their archives are built
# before it): one still without a job or an error after this was lost with its submit.
ADMISSION_GRACE = timedelta(minutes=5)


def _unadmitted(council: Council) -> Council:
    members = [
        m.model_copy(
            update={
                "error_code": ErrorCode.WORKER_LOST,
                "error": "Its submit ended before admitting it.",
            }
        )
        if m.job_id is None and m.error_code is None
        else m
        for m in council.members
    ]
    return council.model_copy(update={"members": members})


def advance_open_councils(project_id: str, *, store: JobStore | None = None) -> None:
    """Advance this project's open councils (a poller's scan runs it: a council whose last
    member ended while nobody looked is told at the next scan)."""
    store = store or JobStore()
    councils = CouncilStore(store.root)
    for council_id in councils.open_ids():
        try:
            council = councils.load(council_id)
            if council.project_id == project_id:
                advance_council(council_id, store=store, councils=councils)
        except OracleError:
            log.exception("advancing council %s failed", council_id)


def _answered(jobs: dict[str, Job], member: CouncilMember) -> bool:
    job = jobs.get(member.job_id or "")
    return job is not None and job.status == Status.COMPLETE


def _response(job: Job) -> str:
    try:
        return Path(job.response_path).read_text(encoding="utf-8").strip()
    except OSError:
        return "(the answer file could not be read)"


def _submit_synthesis(
    council: Council, jobs: dict[str, Job], store: JobStore, councils: CouncilStore
) -> CouncilMember:
    """The synthesis job: the members' answers as its archive's one file."""
    name = council.synthesize or ""
    provider, _, preset = name.partition(":")
    answers = "\n\n".join(_member_section(m, jobs) for m in council.members if _answered(jobs, m))
    directory = councils.dir(council.id) / "synthesis-input"
    base = CouncilMember(name=name, provider=provider, preset=preset or None)
    try:
        from oraculum.archive import build_archive

        directory.mkdir(mode=0o700, exist_ok=True)
        (directory / SYNTHESIS_FILE).write_text(answers + "\n", encoding="utf-8")
        plan = plan_submit(
            SYNTHESIS_PROMPT + council.prompt,
            [],
            caller=Caller(
                cwd=Path(council.project_root),
                session=council.session_id,
                overrides=council.config_overrides,
                jobs=store,
            ),
            provider=provider,
            preset=preset or None,
            allow_any_dir=True,
        )
        with store.staging_area() as staging:
            archive = build_archive(
                directory,
                [SYNTHESIS_FILE],
                staging,
                new_job_id(),
                plan.choice.provider,
                max_bytes=plan.config.archive_max_bytes(plan.choice.provider),
            )
            request = job_request(plan, archive, COUNCIL_SOURCE, force=False)
            request.council_id = council.id
            return _admit(request, store, name)
    except OracleError as error:
        return base.model_copy(update={"error_code": error.code.value, "error": error.message})


def _duration(job: Job) -> str:
    if job.completed_at is None:
        return "not ended"
    seconds = int((job.completed_at - (job.submitted_at or job.created_at)).total_seconds())
    minutes, seconds = divmod(max(seconds, 0), 60)
    return f"{minutes}m {seconds:02d}s" if minutes else f"{seconds}s"


def _observed(job: Job) -> str:
    observed = job.observed_selection or {}
    for key in ("label", "model", "mode"):
        if observed.get(key):
            return str(observed[key])
    shown = ", ".join(f"{k} {v}" for k, v in observed.items() if isinstance(v, str | int))
    return shown or "not recorded"


def _member_section(member: CouncilMember, jobs: dict[str, Job]) -> str:
    job = jobs[member.job_id or ""]
    return "\n".join(
        [
            f"## {member.name}",
            "",
            f"Preset: {member.preset or 'none'} · model shown on the page: {_observed(job)} · "
            f"time taken: {_duration(job)} · job {job.id}",
            "",
            _response(job),
        ]
    )


def _gap(member: CouncilMember, jobs: dict[str, Job]) -> str:
    job = jobs.get(member.job_id or "")
    if job is None:
        return f"- {member.name}: not admitted — {member.error_code}: {member.error}"
    if not job.is_terminal:
        return f"- {member.name} (job {job.id}): still {job.status.value} at the deadline"
    reason = f"{job.error_code}: {job.error}" if job.error_code else (job.error or "no reason")
    step = f" Next: {job.error_next_step}" if job.error_next_step else ""
    return f"- {member.name} (job {job.id}): {job.status.value} — {reason}{step}"


def render_markdown(council: Council, jobs: dict[str, Job]) -> str:
    """council.md: the synthesis (labelled) on top, each answer under its member, the gaps."""
    lines = [f"# Council {council.id}", "", f"Question: {council.prompt}", ""]
    synthesis = council.synthesis
    if synthesis is not None and _answered(jobs, synthesis):
        job = jobs[synthesis.job_id or ""]
        lines += [
            f"## Synthesis by {synthesis.name} (a synthesis of the answers below, not a "
            "member's answer)",
            "",
            f"Model shown on the page: {_observed(job)} · time taken: {_duration(job)} · "
            f"job {job.id}",
            "",
            _response(job),
            "",
        ]
    for member in council.members:
        if _answered(jobs, member):
            lines += [_member_section(member, jobs), ""]
    gaps = [m for m in council.members if not _answered(jobs, m)]
    if synthesis is not None and not _answered(jobs, synthesis):
        gaps.append(synthesis.model_copy(update={"name": f"{synthesis.name} (synthesis)"}))
    lines += ["## Gaps", ""]
    lines += [_gap(m, jobs) for m in gaps] or ["None: every member answered."]
    return "\n".join(lines) + "\n"


def _summary_text(council: Council, jobs: dict[str, Job]) -> tuple[str, dict[str, Any]]:
    answered = [m.name for m in council.members if _answered(jobs, m)]
    missing = [m for m in council.members if not _answered(jobs, m)]
    lines = [f"{len(answered)} of {len(council.members)} members answered."]
    if answered:
        lines.append(f"Answered: {', '.join(answered)}.")
    lines += [_gap(m, jobs)[2:] for m in missing]
    if council.synthesis is not None:
        state = "answered" if _answered(jobs, council.synthesis) else "did not answer"
        lines.append(f"Synthesis by {council.synthesis.name}: {state}.")
    lines.append(
        f"Read every answer with `oraculum read {council.id}` "
        f"({tool_call('oracle_read', {'jobId': council.id})})."
    )
    data = {
        "councilId": council.id,
        "ok": bool(answered),
        "answered": answered,
        "failed": [m.name for m in missing],
    }
    return "\n".join(lines), data


def _finish(
    council: Council,
    jobs: dict[str, Job],
    councils: CouncilStore,
    moment: datetime,
    *,
    by_deadline: bool,
) -> Council:
    councils.write_markdown(council.id, render_markdown(council, jobs))
    text, data = _summary_text(council, jobs)
    notice_id = None
    if council.session_id is not None:
        notice = post_notice(
            Owner(council.project_id, council.session_id),
            kind=NOTICE_KIND,
            source_id=council.id,
            title="every member ended" if not by_deadline else "the deadline came",
            text=text,
            data=data,
        )
        notice_id = notice.id
    return council.model_copy(
        update={"ended_at": moment, "notice_id": notice_id, "ended_by_deadline": by_deadline}
    )


# Status, read, wait, cancel ------------------------------------------------------------------


def council_result(
    council_ref: str,
    *,
    store: JobStore | None = None,
    councils: CouncilStore | None = None,
    markdown: bool = False,
) -> CouncilResult:
    """The council (advanced first); with ``markdown`` its council.md once it ended (which
    settles its wake-up, as reading a job does), else what has ended so far."""
    from oraculum.service.summary import job_summary

    store = store or JobStore()
    councils = councils or CouncilStore(store.root)
    council = advance_council(council_ref, store=store, councils=councils)
    jobs = _jobs(store, council)
    text = None
    if markdown:
        if council.ended_at is not None:
            # Rendered again: a member recollected after the council ended (its worker was
            # killed after the prompt was accepted) now shows its answer.
            text = render_markdown(council, jobs)
            councils.write_markdown(council.id, text)
            _settle_notice(council)
        else:
            text = render_markdown(council, jobs).replace(
                "## Gaps", "## Still to come (the council has not ended)", 1
            )
    return CouncilResult(
        council=council.model_dump(mode="json", by_alias=True)
        | {"members": [member_facts(m) for m in council.members]},
        jobs={job_id: job_summary(job) for job_id, job in jobs.items()},
        markdown_path=str(councils.markdown_path(council.id)),
        markdown=text,
    )


def read_council(council_ref: str, **kwargs: Any) -> CouncilResult:
    return council_result(council_ref, markdown=True, **kwargs)


def _settle_notice(council: Council) -> None:
    """Reading the council is what its wake-up asked for: a pending one is not told again."""
    if council.notice_id is None or council.session_id is None:
        return
    notices = NoticeStore()
    with contextlib.suppress(OracleError):
        notices.update(
            council.project_id,
            council.notice_id,
            lambda n: replace(n, settled_at=n.settled_at or utc_now()),
        )


def wait_council(
    council_ref: str, *, timeout_s: float = 50.0, poll_s: float = 1.0, **kwargs: Any
) -> CouncilResult:
    """Block until the council has ended (its wake-up posted); ``wait_timeout`` otherwise."""
    deadline = time.monotonic() + timeout_s
    for _ in _ticks(deadline, poll_s):
        result = council_result(council_ref, **kwargs)
        if result.council.get("endedAt") is not None:
            return read_council(council_ref, **kwargs)
    raise OracleError(
        ErrorCode.WAIT_TIMEOUT,
        f"Council {council_ref} is still running.",
        rejected_value=council_ref,
        suggested_next_step=f"Wait again with `oraculum wait {council_ref}`.",
    )


def _ticks(deadline: float, poll_s: float) -> Iterator[None]:
    while True:
        yield
        if time.monotonic() >= deadline:
            return
        time.sleep(min(poll_s, max(deadline - time.monotonic(), 0.0)))


def cancel_council(
    council_ref: str, *, store: JobStore | None = None, councils: CouncilStore | None = None
) -> CouncilResult:
    """Cancel every unfinished member (and the synthesis); the council then ends and wakes the
    session once, with what had ended."""
    store = store or JobStore()
    councils = councils or CouncilStore(store.root)
    moment = utc_now()
    council = councils.update(
        validate_council_id(council_ref),
        lambda c: (
            c if c.cancel_requested_at else c.model_copy(update={"cancel_requested_at": moment})
        ),
    )
    for job_id, job in _jobs(store, council).items():
        if not job.is_terminal:
            with contextlib.suppress(OracleError):
                cancel_job(job_id, store=store)
    return council_result(council.id, store=store, councils=councils)
