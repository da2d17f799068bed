"""The interface between the worker and a provider's browser flow."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from oraculum.core.config import Config
from oraculum.jobs.model import EventKind, Job, Phase
from oraculum.jobs.store import JobPaths


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
