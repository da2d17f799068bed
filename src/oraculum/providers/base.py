"""The interface between the worker and a provider's browser flow."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from oraculum.core.config import Config
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.jobs.model import EventKind, Job, Phase, PromptSendState
from oraculum.jobs.store import JobPaths

if TYPE_CHECKING:
    from playwright.async_api import Page

    from oraculum.capture.collect import CollectionResult


class WorkerContext(Protocol):
    """What the worker offers a provider while it runs one job."""

    job: Job
    paths: JobPaths
    config: Config
    prompt: str

    async def enter_phase(self, phase: Phase, *, patch: dict[str, Any] | None = None) -> Job:
        """Move the job to ``phase`` (heartbeat included) and return the stored job."""
        ...

    async def record(
        self, patch: dict[str, Any], *, message: str | None = None, kind: EventKind | None = None
    ) -> Job:
        """Persist facts about the run (chat URL, send state, …) without changing phase."""
        ...

    def log(self, message: str) -> None:
        """Append a line to the job's worker log."""
        ...


@dataclass(frozen=True)
class AdoptedUrl:
    """A conversation URL a provider showed after send, and whether the job's archive was
    seen in it (proof it is this job's)."""

    chat_url: str
    conversation_id: str
    verified: bool


@dataclass
class ProviderOutcome:
    """How a run ended when it did not raise: the terminal phase and the facts to record."""

    phase: Phase = Phase.COMPLETE
    patch: dict[str, Any] = field(default_factory=dict)
    message: str = "Job completed successfully."


class Provider(Protocol):
    async def run(self, ctx: WorkerContext) -> ProviderOutcome:
        """Drive the job from `submitted` to an answer; raise OracleError on failure."""
        ...


@runtime_checkable
class Recollector(Protocol):
    """A provider that can collect a job's answer again from its reopened conversation."""

    async def recollect_page(
        self, page: Page, job: Job, paths: JobPaths, config: Config, *, hooks: RecollectHooks
    ) -> CollectionResult:
        """A completed job: its saved binding's exact turn again. A failed job whose prompt
        was accepted: wait for the reply to its archive's turn, then bind to it as a first
        capture does. Never sends anything."""
        ...


@dataclass(frozen=True)
class ProbeEntry:
    """One control a live probe looked for: what the vocabulary expects, what the page shows."""

    entry: str
    expected: str
    found: str
    ok: bool

    def to_json(self) -> dict[str, Any]:
        return {"entry": self.entry, "expected": self.expected, "found": self.found, "ok": self.ok}


class LiveProbe(Protocol):
    """`oraculum doctor`'s look at a provider's signed-in page (its registry entry's
    ``live_probe`` names the class, made with the page: one view of it throughout, so what its
    readiness wait cleared is what the entries report). Read-only: nothing is sent, uploaded
    or chosen."""

    async def identity(self) -> tuple[int, str | None]:
        """What the site's backend says of the session: HTTP status and the account's name."""
        ...

    async def wait_ready(self, config: Config) -> None:
        """Until the page is ready for a prompt; the readiness error a job would get if not."""
        ...

    async def entries(self) -> list[ProbeEntry]:
        """Every control the next job needs, in the order it meets them; never raises for
        what the page shows."""
        ...


@runtime_checkable
class PlanProbe(Protocol):
    """A `LiveProbe` that also reads which models the account's plan lacks (ChatGPT's picker
    shows them locked behind an upgrade; issue 38 §7). Optional: a probe without it makes no
    such claim."""

    def plan_refusal(self, selection: dict[str, Any]) -> OracleError | None:
        """After `entries()`: the refusal a job of ``selection`` (its JSON form) would meet
        because the page showed the account's plan lacks its model; None otherwise."""
        ...


@dataclass(frozen=True)
class RecollectHooks:
    reopen: Callable[[], Awaitable[None]]
    persist: Callable[[dict[str, Any]], Awaitable[Job]]
    log: Callable[[str], None]


def with_send_warning(error: OracleError, job: Job) -> OracleError:
    """``error`` told whether the prompt already went out, so nobody resends it blindly.

    After `attempted` the provider may or may not have it; after `accepted` it has it, and the
    answer may be in the saved conversation, to be recollected rather than asked again.
    """
    state = job.prompt_send_state
    if error.code == ErrorCode.DEEP_RESEARCH_NEEDS_ANSWER:
        return error  # its own next step says how to answer in the same conversation
    if state == PromptSendState.ATTEMPTED and error.code != ErrorCode.SEND_NOT_ACCEPTED:
        error.message += " (the prompt may already have been sent: resubmitting could duplicate it)"
    elif state == PromptSendState.ACCEPTED:
        error.message += " (the prompt was already sent and accepted: do not resubmit it)"
        if job.chat_url:
            error.suggested_next_step = (
                f"The answer may be in the conversation: `oraculum read {job.id} --recollect` "
                "collects it without sending anything."
            )
    return error
