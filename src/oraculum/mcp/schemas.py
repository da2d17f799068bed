"""The MCP contract's types: argument annotations (title, description, enum, bounds) and the
output schemas each tool declares (`outputSchema`).

Outputs are TypedDicts without required keys: a result holds the keys its data has, an error
result holds only `error` (and `wakeups`), and both validate against the same schema, as some
clients check every result. Generated property titles are dropped: names and descriptions say
what a property is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from mcp.types import ToolAnnotations
from pydantic import ConfigDict, Field, WithJsonSchema, with_config
from typing_extensions import TypedDict  # pydantic needs it on Python < 3.12

from oraculum.core import providers
from oraculum.core.presets import choice_ids

# The registry's providers and every provider's model choices (a registered provider's too),
# as the tools' enums; to the type checker they are strings (the values exist only at runtime).
if TYPE_CHECKING:
    Provider: TypeAlias = str
    RealProvider: TypeAlias = str
    PresetId: TypeAlias = str
else:
    Provider = Literal[tuple(providers.REGISTRY)]
    RealProvider = Literal[providers.browser_providers()]
    PresetId = Literal[choice_ids()]


# Arguments: a human title and a description each (no generated titles such as "Jobid").
def arg(title: str, description: str, **constraints: Any) -> Any:
    return Field(title=title, description=description, **constraints)


JobIdArg = Annotated[
    str | None,
    arg("Job id", "An oracle job id, or a unique prefix of 4+ characters (see oracle_status)."),
]
ProviderArg = Annotated[
    Provider | None,
    arg(
        "Provider",
        "chatgpt (the default), grok only when the user asked for Grok, test for a dry run "
        "without a browser.",
    ),
]
ReadActionArg = Annotated[
    Literal["recollect"] | None,
    arg(
        "Action",
        "recollect: collect the job's answer again from its conversation (nothing is sent).",
    ),
    # An enum, not pydantic's `const`, for a one-value choice: every client reads enums.
    WithJsonSchema({"anyOf": [{"type": "string", "enum": ["recollect"]}, {"type": "null"}]}),
]
FollowUpArg = Annotated[
    str | None,
    arg("Follow-up of job", "A completed job whose provider thread this request continues."),
]
PromptArg = Annotated[
    str,
    arg(
        "Prompt",
        "A self-contained request for the oracle: goal, background, what the archive "
        "holds, the answer wanted. UTF-8, at most 8 MiB.",
    ),
]
FilesArg = Annotated[
    list[str],
    arg(
        "Files",
        "Paths relative to the project root to archive ('.' for the whole repository).",
        min_length=1,
    ),
]
PresetArg = Annotated[
    PresetId | None,
    arg("Preset", "A model preset (see oracle_presets); omit for the configured default."),
]
ConversationArg = Annotated[
    str | None,
    arg("ChatGPT conversation", "Continue this ChatGPT conversation (id or /c/ URL)."),
]
IncludeGitDirArg = Annotated[
    bool,
    arg("Include .git", "Allow naming .git (it uploads every committed secret)."),
]
AllowAnyDirArg = Annotated[
    bool,
    arg(
        "Allow any directory",
        "Allow '.' outside a project (home directory, /, no repository or project file); "
        "only when the user asked for that whole directory.",
    ),
]
ResearchAnswerArg = Annotated[
    str | None,
    arg(
        "Research answer",
        "deep_research only: the reply to send if Deep Research asks a clarifying question "
        "first (without it the job ends deep_research_needs_answer, the question saved).",
        min_length=1,
        max_length=20_000,
    ),
]
DryRunArg = Annotated[
    bool,
    arg(
        "Dry run",
        "Build everything and send nothing: returns dryRun (the prompt as typed, provider, "
        "preset, archive, estimated tokens, capacity) and creates no job.",
    ),
]
ForceArg = Annotated[
    bool,
    arg(
        "Force",
        "Send even while an identical job (same prompt, archive, provider, preset) is queued "
        "or running; without it that is a duplicate_job error naming the job.",
    ),
]


def untitled(schema: dict[str, Any]) -> None:
    """No generated property titles ("Jobid") in an output schema: names and descriptions say
    it."""
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)


UNTITLED = ConfigDict(json_schema_extra=untitled)


@with_config(UNTITLED)
class ErrorData(TypedDict, total=False):
    code: Annotated[str, Field(description="Stable error code to branch on.")]
    message: str
    rejectedValue: Any
    allowedValues: list[Any]
    suggestedNextStep: str
    retryable: bool
    details: dict[str, Any]


@with_config(UNTITLED)
class WakeupData(TypedDict, total=False):
    jobId: str
    noticeId: Annotated[str, Field(description="A background task's notice (not a job).")]
    kind: Annotated[str, Field(description="The notice's task kind (fetch, codex_search, …).")]
    status: Annotated[str, Field(description="How the job or task ended.")]
    attempt: Annotated[int, Field(description="1, 2 or 3: reminders until the job is read.")]
    adopted: Annotated[bool, Field(description="Delivered to this session for a gone one.")]
    originSessionId: str
    text: Annotated[
        str, Field(description="The wake-up's notice, to act on: paths, outcome, next step.")
    ]


# The fields any tool's structured content may hold; each family's output type extends it.
@with_config(UNTITLED)
class Common(TypedDict, total=False):
    message: Annotated[str, Field(description="What happened (the text says it too).")]
    nextStep: Annotated[str, Field(description="What to do next.")]
    error: Annotated[ErrorData, Field(description="Set on a tool error (isError: true).")]
    wakeups: Annotated[
        list[WakeupData],
        Field(description="Jobs of this session that ended, and background tasks' notices."),
    ]


JobData = Annotated[
    dict[str, Any],
    Field(description="The job's id, status and the facts this result is about (docs/agents.md)."),
]


@with_config(UNTITLED)
class PreflightOutput(Common, total=False):
    ready: bool
    provider: str
    session: Annotated[dict[str, Any], Field(description="sessionId, and whether generated.")]
    projectRoot: str
    jobsDir: str
    capacity: dict[str, int]
    followUpJobId: str


@with_config(UNTITLED)
class JobOutput(Common, total=False):
    job: JobData
    dryRun: Annotated[
        dict[str, Any],
        Field(description="oracle_submit with dryRun: what would be sent (docs/agents.md)."),
    ]


@with_config(UNTITLED)
class CancelOutput(JobOutput, total=False):
    outcome: Literal["cancelled", "finished_first", "cancel_failed"]


@with_config(UNTITLED)
class ReadOutput(JobOutput, total=False):
    response: Annotated[
        dict[str, Any],
        Field(description="path, available, chars, preview (first 4000 characters), truncated"),
    ]
    gaps: dict[str, Any]
    artifacts: list[dict[str, Any]]
    artifactsPath: str
    recollection: dict[str, Any]


@with_config(UNTITLED)
class StatusOutput(JobOutput, total=False):
    recentJobIds: Annotated[list[str], Field(description="Recent jobs, newest first.")]
    problems: list[dict[str, Any]]


@with_config(UNTITLED)
class WaitOutput(JobOutput, total=False):
    done: Annotated[bool, Field(description="False: still running; call oracle_wait again.")]
    elapsedSeconds: float


@with_config(UNTITLED)
class AuthOutput(Common, total=False):
    provider: str
    mode: str
    seedProfileDir: str
    identity: Any


@with_config(UNTITLED)
class PresetsOutput(Common, total=False):
    presets: list[dict[str, Any]]


def hints(*, read_only: bool, destructive: bool, idempotent: bool, open_world: bool) -> Any:
    return ToolAnnotations(
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=open_world,
    )


# The three behaviours most tools share: looking without changing anything, stopping something
# local (again is harmless), and acting on the world outside (a new job, a fetch, a message).
READ_ONLY_HINTS = hints(read_only=True, destructive=False, idempotent=True, open_world=False)
STOP_HINTS = hints(read_only=False, destructive=True, idempotent=True, open_world=False)
OUTWARD_HINTS = hints(read_only=False, destructive=False, idempotent=False, open_world=True)
