"""How the MCP tests start `oraculum mcp`: the real command, over stdio, with its stderr kept."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp.client.stdio import StdioServerParameters, stdio_client

from mcp import Client

ORACULUM = str(Path(sys.executable).with_name("oraculum"))


def server_params(project: Path, *args: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=ORACULUM, args=["mcp", *args], env=dict(os.environ), cwd=str(project)
    )


@asynccontextmanager
async def mcp_client(
    project: Path, *args: str, stderr: Path | None = None, **client: Any
) -> AsyncIterator[Client]:
    """A client of a fresh `oraculum mcp` server; its stderr goes to ``stderr`` when given."""
    params = server_params(project, *args)
    if stderr is None:
        async with Client(params, **client) as session:
            yield session
        return
    with stderr.open("a") as errlog:
        async with Client(stdio_client(params, errlog=errlog), **client) as session:
            yield session


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content)
