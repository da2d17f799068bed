"""Starting `oraculum mcp` (the real command, over stdio) with a profile, for these tests."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mcp.client.stdio import StdioServerParameters

ORACULUM = str(Path(sys.executable).with_name("oraculum"))


def server(project: Path, *args: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=ORACULUM, args=["mcp", *args], env=dict(os.environ), cwd=str(project)
    )
