"""The job record (`job.json`) and its vocabulary: statuses, phases, events.

Field names follow the upstream `job.json` (camelCase on disk); Python code uses snake_case.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    field_serializer,
    model_serializer,
    model_validator,
)
from pydantic.alias_generators import to_camel

from oraculum.core.presets import Selection

MAX_LIFECYCLE_EVENTS = 64


class Status(StrEnum):
    QUEUED = "queued"
    SUBMITTED = "submitted"
    WAITING = "waiting"
    COMPLETE = "complete"
    FAILED = "failed"
    CANCELLED = "cancelled"


class Phase(StrEnum):
    QUEUED = "queued"
    SUBMITTED = "submitted"
    CLONING_RUNTIME = "cloning_runtime"
    LAUNCHING_BROWSER = "launching_browser"
    VERIFYING_AUTH = "verifying_auth"
    CONFIGURING_MODEL = "configuring_model"
    UPLOADING_ARCHIVE = "uploading_archive"
    AWAITING_RESPONSE = "awaiting_response"
    EXTRACTING_RESPONSE = "extracting_response"
    DOWNLOADING_ARTIFACTS = "downloading_artifacts"
    COMPLETE = "complete"
    COMPLETE_WITH_ARTIFACT_ERRORS = "complete_with_artifact_errors"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def words(self) -> str:
        """The phase as people read it: `awaiting response`, not `awaiting_response`."""
        return self.value.replace("_", " ")


# The worker's phases, in the order a run passes through them.
WORKER_PHASES: tuple[Phase, ...] = (
    Phase.CLONING_RUNTIME,
    Phase.LAUNCHING_BROWSER,
    Phase.VERIFYING_AUTH,
    Phase.CONFIGURING_MODEL,
    Phase.UPLOADING_ARCHIVE,
    Phase.AWAITING_RESPONSE,
    Phase.EXTRACTING_RESPONSE,
    Phase.DOWNLOADING_ARTIFACTS,
)

PHASE_STATUS: dict[Phase, Status] = {
    Phase.QUEUED: Status.QUEUED,
    Phase.SUBMITTED: Status.SUBMITTED,
    **{phase: Status.WAITING for phase in WORKER_PHASES},
    Phase.COMPLETE: Status.COMPLETE,
    Phase.COMPLETE_WITH_ARTIFACT_ERRORS: Status.COMPLETE,
    Phase.FAILED: Status.FAILED,
    Phase.CANCELLED: Status.CANCELLED,
}

ACTIVE_STATUSES = frozenset({Status.SUBMITTED, Status.WAITING})
OPEN_STATUSES = frozenset({Status.QUEUED, *ACTIVE_STATUSES})
TERMINAL_STATUSES = frozenset({Status.COMPLETE, Status.FAILED, Status.CANCELLED})


class PromptSendState(StrEnum):
    """Whether the prompt may have reached the provider: it only moves forward."""

    NOT_SENT = "not_sent"
    ATTEMPTED = "attempted"
    ACCEPTED = "accepted"


PROMPT_SEND_ORDER = {state: index for index, state in enumerate(PromptSendState)}


class EventKind(StrEnum):
    CREATED = "created"
    PHASE = "phase"
    CLEANUP = "cleanup"
    NOTIFICATION = "notification"
    WAKEUP = "wakeup"
    NAVIGATION = "navigation"
    OBSTACLE = "obstacle"  # a dialog or banner the driver cleared (or tried to)
    NOTE = "note"


def utc_now() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    """Fixed-width UTC timestamps, so lexical order is time order."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class _Record(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        validate_assignment=False,
        use_enum_values=False,
    )

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)

    def to_json_bytes(self) -> bytes:
        """The record as its state file holds it: the JSON of ``json_bytes(to_json_dict())``,
        laid out the same (only a float may be spelled differently, 1e-7 for 1e-07),
        serialised by pydantic-core: indented JSON is ~4x slower through the json module's
        pure-Python encoder, and a job is written under the admission lock."""
        text = self.model_dump_json(indent=2, by_alias=True, exclude_none=True)
        return text.encode() + b"\n"


class LifecycleEvent(_Record):
    at: datetime
    source: str
    kind: EventKind
    status: Status
    phase: Phase
    message: str

    @field_serializer("at")
    def _at(self, value: datetime) -> str:
        return iso(value)


class JobSelection(_Record):
    """What the job asks the provider's UI for: a `core.presets.Selection` as job.json holds it
    (the test provider's is only ``provider``, ``label`` and maybe ``preset``).

    It is written back with exactly the keys it was given, nulls included, so a stored
    selection reads as it was written and every surface shows the same shape as before.
    """

    model_config = ConfigDict(frozen=True)

    provider: str | None = None
    preset: str | None = None
    mode: str | None = None
    model_family: str | None = None
    effort: str | None = None
    auto_switch_to_thinking: bool | None = None
    tool: str | None = None
    label: str | None = None

    @classmethod
    def of(cls, selection: Selection) -> JobSelection:
        return cls.model_validate(selection.to_json_dict())

    @model_serializer(mode="plain")
    def _as_written(self) -> dict[str, Any]:
        fields = type(self).model_fields
        return {fields[name].alias or name: getattr(self, name) for name in self._written()}

    def _written(self) -> list[str]:
        return [name for name in type(self).model_fields if name in self.model_fields_set]

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)


# Keys (either spelling) a selection may hold; anything else in a job.json written before
# `options` existed is a per-job option that lived inside the selection.
SELECTION_KEYS = frozenset(
    key for name, info in JobSelection.model_fields.items() for key in (name, info.alias)
)


def split_legacy_selection(data: Mapping[str, Any]) -> dict[str, Any]:
    """Job fields with a legacy selection's extras (`research_answer`, the test provider's
    knobs) moved into ``options``; options already given win over the legacy ones."""
    out = dict(data)
    selection = out.get("selection")
    if not isinstance(selection, Mapping):
        return out
    extras = {key: value for key, value in selection.items() if key not in SELECTION_KEYS}
    if extras:
        out["selection"] = {k: v for k, v in selection.items() if k in SELECTION_KEYS}
        out["options"] = {**extras, **(out.get("options") or {})}
    return out


class WorkerIdentity(_Record):
    """Who runs a job: never signalled on pid alone."""

    pid: int = Field(gt=0)
    start_time: float  # psutil create_time(), seconds since the epoch
    nonce: str


class Job(_Record):
    id: str
    status: Status
    phase: Phase
    phase_at: datetime
    created_at: datetime
    queued_at: datetime | None = None
    submitted_at: datetime | None = None
    completed_at: datetime | None = None
    heartbeat_at: datetime | None = None
    cancel_requested_at: datetime | None = None
    cancel_reason: str | None = None

    # Where it came from.
    project_root: str
    project_id: str
    session_id: str | None = None
    request_source: str = "cli"
    # A council member (or its synthesis): the council wakes the session once, the job never.
    council_id: str | None = None

    # What it asks.
    provider: str = "chatgpt"
    selection: JobSelection = Field(default_factory=JobSelection)
    # Per-job knobs that are not the selection: a Deep Research reply (`research_answer`),
    # the test provider's (`outcome`, `delayMs`, …). Library-only; no surface shows them.
    options: dict[str, Any] = Field(default_factory=dict)
    follow_up_to_job_id: str | None = None
    chat_url: str | None = None
    conversation_id: str | None = None
    # The duplicate guard's key (jobs.duplicates): an identical request is refused while this
    # job is queued or running.
    submission_digest: str | None = None
    prompt_send_state: PromptSendState = PromptSendState.NOT_SENT
    observed_selection: dict[str, Any] | None = None  # what the composer showed after configuring
    chat_url_verified: bool | None = None

    # Files.
    prompt_path: str
    archive_path: str
    archive_sha256: str | None = None
    archive_bytes: int | None = None
    archive_deleted_after_upload: bool = False
    response_path: str
    artifacts_manifest_path: str
    artifact_paths: list[str] = Field(default_factory=list)
    artifact_failure_count: int | None = None
    logs_dir: str

    # Runtime.
    runtime_id: str
    runtime_profile_dir: str
    worker: WorkerIdentity | None = None
    seed_generation: str | None = None
    config: dict[str, Any] = Field(default_factory=dict)

    # Outcome.
    error: str | None = None
    error_code: str | None = None
    # What the reader does about ``error`` (the error's suggested next step), when it said.
    error_next_step: str | None = None
    # The error's structured facts (``wanted``/``observed`` of a page that drifted, …).
    error_details: dict[str, Any] | None = None
    generation_status: str | None = None
    collection_status: str | None = None
    # Collection details (owned by oraculum.capture; absent on legacy jobs, meaning unknown).
    # collection_binding: {conversationId, responseIndex, messageId?, turnSha256?}, persisted
    # before any artifact is downloaded so a later failure can be recollected without resending.
    collection_binding: dict[str, Any] | None = None
    collection_gaps: list[str] | None = None
    response_fidelity: str | None = None
    recollection_needed: bool = False
    recollection_error: str | None = None

    # Cleanup.
    cleanup_pending: bool = False
    cleanup_warnings: list[str] | None = None
    cleanup_attempt_count: int = 0
    cleanup_retry_at: datetime | None = None
    last_cleanup_at: datetime | None = None

    # Wake-up delivery.
    notify_claimed_at: datetime | None = None
    notify_claimed_by: str | None = None
    wakeup_attempt_count: int = 0
    wakeup_last_requested_at: datetime | None = None
    wakeup_settled_at: datetime | None = None
    wakeup_settled_source: str | None = None
    # Who settled it, who only looked before the first reminder, and where the last one went.
    wakeup_settled_session: str | None = None
    wakeup_observed_at: datetime | None = None
    wakeup_observed_source: str | None = None
    wakeup_observed_session: str | None = None
    wakeup_target_session: str | None = None

    lifecycle_events: list[LifecycleEvent] = Field(default_factory=list)
    schema_version: int = 1

    @model_validator(mode="before")
    @classmethod
    def _legacy_selection(cls, data: Any) -> Any:
        return split_legacy_selection(data) if isinstance(data, Mapping) else data

    @field_serializer(
        "phase_at",
        "created_at",
        "queued_at",
        "submitted_at",
        "completed_at",
        "heartbeat_at",
        "cancel_requested_at",
        "cleanup_retry_at",
        "last_cleanup_at",
        "notify_claimed_at",
        "wakeup_last_requested_at",
        "wakeup_settled_at",
        "wakeup_observed_at",
    )
    def _timestamps(self, value: datetime | None) -> str | None:
        return None if value is None else iso(value)

    @property
    def is_terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES

    @property
    def is_active(self) -> bool:
        return self.status in ACTIVE_STATUSES

    @property
    def is_open(self) -> bool:
        return self.status in OPEN_STATUSES

    @property
    def last_fact(self) -> LifecycleEvent | None:
        """The last event about the job itself, not the wake-up bookkeeping of its readers."""
        bookkeeping = (EventKind.WAKEUP, EventKind.NOTIFICATION)
        facts = [e for e in self.lifecycle_events if e.kind not in bookkeeping]
        return facts[-1] if facts else None
