"""Capability profiles: which tool families one `oraculum mcp` server exposes.

Profiles are data (this table), so a host bridge can read them (`oraculum mcp --list-profiles
--json`). A family is a module of :mod:`oraculum.mcp.families` (its ``FAMILY``) or ``oracle``,
the oracle's own tools, prompts and resources, which every profile includes (the seed's
"core plus …"). ``all`` is every family present. A tool outside the server's profile is
neither listed nor callable. A profile may name a family not built yet: it just adds nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from oraculum.core.errors import ErrorCode, OracleError

__all__ = ["ALL", "DEFAULT_PROFILE", "ORACLE", "PROFILES", "profile_families"]

ORACLE = "oracle"
ALL = "all"
DEFAULT_PROFILE = ORACLE

PROFILES: dict[str, tuple[str, ...]] = {
    ORACLE: (ORACLE,),
    "research": (ORACLE, "fetch", "codex"),
    "processes": (ORACLE, "processes"),
    "scheduler": (ORACLE, "scheduler"),
    "subagents": (ORACLE, "subagents"),
    ALL: (),  # every family present, computed by profile_families
}


def profile_families(name: str, present: Iterable[str]) -> tuple[str, ...]:
    """The families profile ``name`` exposes, given the families ``present``."""
    if name not in PROFILES:
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            f"Unknown MCP profile {name!r}.",
            rejected_value=name[:100],
            allowed_values=list(PROFILES),
            suggested_next_step="See `oraculum mcp --list-profiles`.",
        )
    present = tuple(present)
    if name == ALL:
        return (ORACLE, *(family for family in present if family != ORACLE))
    return tuple(family for family in PROFILES[name] if family == ORACLE or family in present)
