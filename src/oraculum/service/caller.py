"""Who calls an operation, and from where: the one place a service learns its project, session,
config and job store.

A surface builds one :class:`Caller` per call (the CLI from its ``--session`` option, the MCP
server for each tool call from what it resolved at start) and hands it to the services, which
resolve none of these themselves. What costs something (the walk up to the project root, the
config files, the job store) is computed on first use and then kept for the rest of the call: a
command that reads one job by id never walks the tree nor loads the config, and start-up stays
light (this module imports neither the config nor the job engine).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oraculum.core.project import find_project_root, project_id
from oraculum.core.session import resolve_session_id

if TYPE_CHECKING:
    from oraculum.core.config import Config
    from oraculum.jobs.store import JobStore

__all__ = ["Caller"]


# Not slotted: `cached_property` keeps each lazily computed value in the instance's __dict__,
# which a frozen dataclass still has (it only refuses assignment through its fields).
@dataclass(frozen=True, eq=False)
class Caller:
    """A call's context, as given; each derived fact is resolved once, when first needed."""

    cwd: Path | None = None  # where the call names things from (None: the current directory)
    session: str | None = None  # as given (None: $ORACULUM_SESSION, read by `session_id`)
    overrides: Mapping[str, Any] | None = None  # the explicit-arguments config layer
    jobs: JobStore | None = None  # the job store to use (None: the default one)

    @cached_property
    def root(self) -> Path:
        return find_project_root(self.cwd)

    @cached_property
    def project_id(self) -> str:
        return project_id(self.root)

    @cached_property
    def config(self) -> Config:
        from oraculum.core.config import load_config  # pydantic: only for calls that need it

        return load_config(self.root, self.overrides).config

    @cached_property
    def store(self) -> JobStore:
        if self.jobs is not None:
            return self.jobs
        from oraculum.jobs.store import JobStore  # the job engine: only for calls that need it

        return JobStore()

    def session_id(self, action: str, *, required: bool = True) -> str | None:
        """The session, validated; ``required`` refuses a call without one, saying that it
        needs one to ``action`` (``persisted_session_required``)."""
        return resolve_session_id(self.session, action=action, required=required)
