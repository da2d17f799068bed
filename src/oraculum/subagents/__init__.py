"""Subagents: clean, persistent child agent conversations (docs/subagents.md).

:mod:`oraculum.subagents.registry` keeps a session's conversations and runs their turns;
:mod:`oraculum.subagents.backend` is the seam one agent CLI implements, and
:mod:`oraculum.subagents.pi_rpc` the first such backend (pi in RPC mode).
"""

from oraculum.subagents.backend import AgentBackend, AgentChild, TurnOutcome, TurnStatus
from oraculum.subagents.registry import SubagentRegistry
from oraculum.subagents.spec import LaunchSpec, Routing, launch_spec, routing

__all__ = [
    "AgentBackend",
    "AgentChild",
    "LaunchSpec",
    "Routing",
    "SubagentRegistry",
    "TurnOutcome",
    "TurnStatus",
    "launch_spec",
    "pi_rpc",  # the first backend, a module (loaded by whoever launches pi children)
    "results",  # what the registry's calls return, a module
    "routing",
]
