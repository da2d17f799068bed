"""What oraculum's own processes (the CLI and the MCP server it starts, workers, the
scheduler's runner) set in their environment before they load anything.

Third-party pydantic plugins stay off: finding them scans the metadata of every installed
distribution (``importlib.metadata.entry_points``, ~8 ms here) the first time a process
builds a model, in every start that loads the job or config models, and oraculum's models are
its own to observe. A value the user set wins.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

__all__ = ["OWN_DEFAULTS", "apply_own_defaults"]

OWN_DEFAULTS: dict[str, str] = {"PYDANTIC_DISABLE_PLUGINS": "__all__"}


def apply_own_defaults(environ: MutableMapping[str, str] = os.environ) -> None:
    """Set each of :data:`OWN_DEFAULTS` in ``environ`` unless it is set already."""
    for name, value in OWN_DEFAULTS.items():
        environ.setdefault(name, value)
