"""Collection, the driver-facing entry: bind to one assistant turn, capture it, save it.

Order matters and is the point of this module:
1. capture the bound turn, checking the conversation inside the same page evaluation; a page
   showing another conversation is never read: the job's own is reopened and the capture
   retried, boundedly;
2. resolve and persist the binding (identity, text hash) *before* anything is downloaded;
3. write the response files, then download and validate the turn's artifacts;
4. return the job fields to record (``CollectionResult.patch``).

For ChatGPT nothing but the bound turn is ever saved as the response: when it cannot be
captured, `response.md` is not written (an earlier file is kept), the collection is `failed` and
`recollectionNeeded` says to recollect rather than resend.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import Page

from oraculum.capture import outcome
from oraculum.capture.artifacts import ArtifactOutcome, DownloadTimings, collect_artifacts
from oraculum.capture.binding import (
    Binding,
    BindingRefused,
    conversation_id_from_url,
    resolve_capture,
)
from oraculum.capture.files import (
    sha256_text,
    write_capture_record,
    write_response,
)
from oraculum.capture.outcome import CollectionStatus, Gaps
from oraculum.capture.own_capture import provider_capture
from oraculum.capture.page import (
    CaptureFn,
    CaptureRequest,
    TurnCapture,
    TurnVocabulary,
    capture_turn,
)
from oraculum.capture.replies import comparison_record, reply_choice, reply_evidence, write_compared
from oraculum.capture.research import ReportSources, read_report
from oraculum.core.config import Config
from oraculum.jobs.model import Job, Phase
from oraculum.jobs.store import JobPaths

MAX_CAPTURE_ATTEMPTS = 3
# A page that has just been (re)opened may not have rendered its turns yet.
RENDER_RETRY_DELAY_S = 0.5

Reopen = Callable[[], Awaitable[None]]
Persist = Callable[[dict[str, Any]], Awaitable[Job]]


@dataclass
class CollectionResult:
    patch: dict[str, Any]
    phase_hint: Phase
    response_text: str | None
    status: CollectionStatus
    gaps: Gaps = field(default_factory=Gaps)
    error: str | None = None


class CaptureFailed(Exception):
    def __init__(self, code: str, message: str, binding: Binding | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.binding = binding


def initial_binding(job: Job, response_index: int) -> Binding | None:
    conversation = job.conversation_id or conversation_id_from_url(job.chat_url)
    if conversation is None:
        return None
    saved = Binding.from_json(job.collection_binding)
    same_turn = saved is not None and (saved.message_id or saved.response_index == response_index)
    if saved is not None and same_turn and saved.conversation_id == conversation:
        return saved  # an earlier attempt's exact binding is never replaced by a guess
    return Binding(conversation, response_index)


async def bound_capture(
    page: Page,
    binding: Binding,
    reopen: Reopen,
    *,
    archive_name: str | None = None,
    anchored: bool = False,
    attempts: int = MAX_CAPTURE_ATTEMPTS,
    capture_fn: CaptureFn | None = None,
    vocabulary: TurnVocabulary | None = None,
) -> tuple[TurnCapture, Binding]:
    """Capture the bound turn; reopen the job's conversation when the page shows another.

    ``anchored``: bind to the first reply after the user turn showing ``archive_name`` (unless
    an earlier attempt already learned the turn's message id, which wins). ``capture_fn`` reads
    the page for a provider with its own capture root (default: capture.js)."""
    request = CaptureRequest(
        response_index=binding.response_index,
        expect_conversation_id=binding.conversation_id,
        message_id=binding.message_id,
        archive_name=archive_name,
        bind_by_archive=anchored and archive_name is not None and not binding.message_id,
        turn=vocabulary or TurnVocabulary(),
    )
    last: TurnCapture | None = None
    for attempt in range(attempts):
        capture = await (capture_fn(request) if capture_fn else capture_turn(page, request))
        last = capture
        if capture.ok:
            try:
                resolved = resolve_capture(
                    binding, capture, archive_name=archive_name, anchored=anchored
                )
                return capture, resolved
            except BindingRefused as refused:
                raise CaptureFailed(refused.code, refused.message, binding) from None
        if capture.error in ("conversation_mismatch", "evaluation_failed"):
            if attempt + 1 < attempts:
                await reopen()
            continue
        rendering = capture.error in (
            "bound_root_absent",
            "bound_message_absent",
            "archive_turn_absent",
        )
        if rendering and attempt + 1 < attempts:
            # The turns may still be rendering after a (re)load.
            await asyncio.sleep(RENDER_RETRY_DELAY_S * (attempt + 1))
            continue
        break
    assert last is not None
    raise CaptureFailed(last.error or "capture_failed", last.message or "Capture failed.", binding)


def _capture_record(
    *,
    binding: Binding,
    capture: TurnCapture,
    choice: outcome.ResponseChoice | None,
    evidence: dict[str, Any],
    blocks: list[dict[str, Any]],
    sources: list[dict[str, Any]],
    artifacts: ArtifactOutcome,
    gaps: Gaps,
    status: CollectionStatus,
    compared: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    validated = sum(1 for r in artifacts.records if r.get("state") == "validated")
    return {
        "binding": binding.to_json_dict(),
        "collectionStatus": str(status),
        "method": choice.method if choice else None,
        "fidelity": str(choice.fidelity) if choice else None,
        "response": (
            {"path": "response.md", "sha256": sha256_text(choice.text), "chars": len(choice.text)}
            if choice
            else None
        ),
        "title": capture.title,
        "reasoningLabel": capture.reasoning_label,
        "rawEvidence": evidence,
        "codeBlocks": blocks,
        "sources": sources,
        "frames": [{"src": f.get("src"), "srcKind": f.get("srcKind")} for f in capture.frames],
        "artifactInspection": {
            "state": artifacts.inspection_state,
            "candidatesFound": len(capture.candidates),
            "noneFound": artifacts.inspection_state == "inspected" and not capture.candidates,
            "unconfirmed": len(capture.candidates) - validated,
        },
        "gaps": {"required": gaps.required, "optional": gaps.optional},
        "chrome": capture.chrome,
        **comparison_record(capture, choice, compared),
    }


async def _response_choice(
    page: Page, capture: TurnCapture, binding: Binding, research: bool
) -> tuple[outcome.ResponseChoice | None, ReportSources | None]:
    """The turn's response: for Deep Research the report (capture.research), else the turn."""
    if research:
        report = await read_report(page, binding.message_id, base_url=capture.url)
        if report.choice is None:
            return None, report
        chosen = report.choice
        return outcome.ResponseChoice(chosen.text, chosen.fidelity, chosen.method), report
    return reply_choice(capture.reply, capture.url), None


def _report_record(report: ReportSources | None) -> dict[str, Any]:
    if report is None:
        return {}
    chosen = report.choice
    return {
        "report": {
            "method": chosen.method if chosen else None,
            "completedLabel": report.completed_label,
            "nativeExport": chosen.export if chosen else None,
            "diagrams": chosen.diagrams if chosen else 0,
            "error": report.error,
        },
        "citations": chosen.citations if chosen else None,
    }


def _phase(artifacts: ArtifactOutcome) -> Phase:
    return Phase.COMPLETE_WITH_ARTIFACT_ERRORS if artifacts.failure_count else Phase.COMPLETE


def _gaps(
    choice: outcome.ResponseChoice | None,
    sources: list[dict[str, Any]],
    artifacts: ArtifactOutcome,
    report: ReportSources | None,
) -> Gaps:
    """The turn's gaps, and a Deep Research report's own (capture.deep_research)."""
    gaps = outcome.collection_gaps(
        choice=choice,
        sources=sources,
        inspection_state=artifacts.inspection_state,
        artifacts=artifacts.records,
        capture_errors=[report.error] if report and report.error else [],
    )
    for gap in report.choice.gaps if report and report.choice else []:
        gaps.add(gap)
    return gaps


async def finalise(
    page: Page,
    capture: TurnCapture,
    binding: Binding,
    paths: JobPaths,
    config: Config,
    *,
    timings: DownloadTimings | None = None,
    research: bool = False,
) -> CollectionResult:
    """Write the bound turn's response files and artifacts. ``research``: the response is the
    Deep Research report its widget holds (capture.research), never the turn's own text."""
    choice, report = await _response_choice(page, capture, binding, research)
    if choice is not None:
        choice = outcome.redact_choice(choice)
        write_response(paths.response, choice.text)
    evidence, blocks, sources = reply_evidence(paths.dir, capture.reply, capture.url)
    compared, compared_sources, compared_choices = write_compared(paths.dir, capture)
    artifacts = await collect_artifacts(
        page,
        capture.candidates,
        paths.dir,
        paths.artifacts_manifest,
        enabled=config.artifacts.capture,
        max_bytes=config.artifacts.max_bytes,
        timings=timings,
    )
    gaps = _gaps(choice, sources + compared_sources, artifacts, report)
    if capture.comparison is not None:
        outcome.add_comparison_gaps(gaps, compared_choices)
    saved = choice is not None or paths.response.exists()
    status = outcome.collection_status(choice is not None, gaps)
    record = _capture_record(
        binding=binding,
        capture=capture,
        choice=choice,
        evidence=evidence,
        blocks=blocks,
        sources=sources,
        artifacts=artifacts,
        gaps=gaps,
        status=status,
        compared=compared,
    )
    write_capture_record(paths.dir, {**record, **_report_record(report)})
    return CollectionResult(
        patch=_collected_patch(status, gaps, choice, binding, artifacts, saved=saved),
        phase_hint=_phase(artifacts),
        response_text=choice.text if choice else None,
        status=status,
        gaps=gaps,
        error=report.error if report and report.choice is None else None,
    )


def _collected_patch(
    status: CollectionStatus,
    gaps: Gaps,
    choice: outcome.ResponseChoice | None,
    binding: Binding,
    artifacts: ArtifactOutcome,
    *,
    saved: bool,
) -> dict[str, Any]:
    """The job's fields after a bound capture was written (``saved``: response.md exists)."""
    return {
        "collection_status": str(status),
        "collection_gaps": gaps.all(),
        "response_fidelity": str(choice.fidelity) if choice else None,
        "collection_binding": binding.to_json_dict(),
        "artifact_paths": artifacts.paths,
        "artifact_failure_count": artifacts.failure_count,
        "recollection_needed": not saved,
        "recollection_error": None,
    }


def failed_result(
    job: Job, paths: JobPaths, error: CaptureFailed, *, recollecting: bool
) -> CollectionResult:
    """The fields for a bound capture that failed; earlier usable bytes are left alone."""
    earlier = paths.response.exists()
    gaps = Gaps.of(job.collection_gaps or []) if recollecting and earlier else Gaps()
    gaps.add(outcome.GAP_BOUND_CAPTURE)
    gaps.add(outcome.capture_error_gap(f"{error.code}: {error.message}"))
    status = (
        CollectionStatus(job.collection_status or "partial")
        if recollecting and earlier and job.collection_status
        else CollectionStatus.FAILED
    )
    if status == CollectionStatus.COMPLETE:
        status = CollectionStatus.PARTIAL  # a gap is now named
    patch: dict[str, Any] = {
        "collection_status": str(status),
        "collection_gaps": gaps.all(),
        "recollection_needed": True,
    }
    if error.binding is not None:
        patch["collection_binding"] = error.binding.to_json_dict()
    if recollecting:
        patch["recollection_error"] = f"{error.code}: {error.message}"
    return CollectionResult(
        patch=patch,
        phase_hint=Phase.COMPLETE,
        response_text=None,
        status=status,
        gaps=gaps,
        error=error.message,
    )


async def collect(
    page: Page,
    job: Job,
    paths: JobPaths,
    config: Config,
    *,
    response_index: int,
    reopen: Reopen,
    persist: Persist,
    timings: DownloadTimings | None = None,
    capture_fn: CaptureFn | None = None,
    research: bool = False,
    anchored: bool = True,
    vocabulary: TurnVocabulary | None = None,
) -> CollectionResult:
    """Collect the assistant turn at ``response_index`` (0-based among the conversation's
    assistant turns, as :func:`oraculum.capture.page.assistant_turns` counts them).

    ``anchored`` False binds by position (a Deep Research turn that answered a clarifying
    question is the second reply after the archive's turn, not the first). ``vocabulary``:
    the provider's words for chrome and comparisons inside a turn."""
    binding = initial_binding(job, response_index)
    if binding is None:
        return failed_result(
            job,
            paths,
            CaptureFailed("conversation_unknown", "The job has no conversation to bind to."),
            recollecting=False,
        )
    await persist({"collection_binding": binding.to_json_dict()})
    try:
        # Proven, not counted: the answer is the first reply after the user turn that shows
        # this job's archive, read in the same evaluation as the turn itself.
        capture, binding = await bound_capture(
            page,
            binding,
            reopen,
            archive_name=Path(job.archive_path).name if anchored else None,
            anchored=anchored,
            capture_fn=capture_fn or provider_capture(job.provider, page),
            vocabulary=vocabulary,
        )
    except CaptureFailed as error:
        return failed_result(job, paths, error, recollecting=False)
    await persist({"collection_binding": binding.to_json_dict()})  # before any download
    return await finalise(page, capture, binding, paths, config, timings=timings, research=research)


async def recollect(
    page: Page,
    job: Job,
    paths: JobPaths,
    config: Config,
    *,
    reopen: Reopen,
    persist: Persist,
    timings: DownloadTimings | None = None,
    capture_fn: CaptureFn | None = None,
    research: bool = False,
    vocabulary: TurnVocabulary | None = None,
) -> CollectionResult:
    """Reacquire the saved binding's exact turn and collect it again; never guesses a turn.
    ``research``: a Deep Research job's report is read again from the same sources."""
    binding = Binding.from_json(job.collection_binding)
    if binding is None:
        return failed_result(
            job,
            paths,
            CaptureFailed(
                "recollect_binding_missing",
                "The job has no saved collection binding; recollection needs the observed "
                "responseIndex and messageId.",
            ),
            recollecting=True,
        )
    # A positional binding is reacquired through the user turn that shows the job's archive.
    archive_name = None if binding.message_id else Path(job.archive_path).name
    try:
        capture, resolved = await bound_capture(
            page,
            binding,
            reopen,
            archive_name=archive_name,
            capture_fn=capture_fn or provider_capture(job.provider, page),
            vocabulary=vocabulary,
        )
    except CaptureFailed as error:
        return failed_result(job, paths, error, recollecting=True)
    await persist({"collection_binding": resolved.to_json_dict()})  # identity learned survives
    return await finalise(
        page, capture, resolved, paths, config, timings=timings, research=research
    )
