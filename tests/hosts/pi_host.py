"""Driving a real pi (`@earendil-works/pi-coding-agent`) non-interactively against `oraculum mcp`.

pi reads its configuration from `PI_CODING_AGENT_DIR` (default `~/.pi/agent`): `models.json`
points it at the scripted endpoint as an OpenAI-compatible provider, and `mcp.json` starts
`oraculum mcp` by the venv's absolute path with an `env` map holding the private test home's
`ORACULUM_*` variables. pi itself runs with a minimal environment without them, so a test
passes only if the `env` map reaches the server.

`--session-id` makes a run open (or create) one persisted pi session, so two runs are one
conversation; pi does not tell MCP servers its session id (it only exports `PI_SESSION_ID` to
its shell tools), so the `env` map also sets `ORACULUM_SESSION` to a stable id.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .host_tools import HostTools
from .scripted_model import MCP_PREFIX, MODEL_ID

PROVIDER = "scripted"
ORACULUM_VARIABLES = (
    "ORACULUM_JOBS_DIR",
    "ORACULUM_STATE_DIR",
    "ORACULUM_CONFIG_DIR",
    "ORACULUM_DATA_DIR",
)


def oraculum_executable() -> Path:
    """The `oraculum` entry point of the venv running the tests (absolute, as a user writes)."""
    return Path(sys.executable).with_name("oraculum")


def mcp_config(env: dict[str, str], **options: Any) -> dict[str, Any]:
    """pi's `mcp.json`: oraculum's tools declared to the model directly (pi's default
    exposure, `codemode`, reaches them only through scripts); ``options`` add entry fields."""
    server = {
        "command": str(oraculum_executable()),
        "args": ["mcp"],
        "env": env,
        "exposure": "direct",
        **options,
    }
    return {"mcpServers": {"oraculum": server}}


def models_config(base_url: str) -> dict[str, Any]:
    return {
        "providers": {
            PROVIDER: {
                "baseUrl": base_url,
                "api": "openai-completions",
                "apiKey": "scripted-test-key",
                "models": [{"id": MODEL_ID}],
            }
        }
    }


@dataclass(frozen=True)
class PiRun:
    returncode: int
    events: list[dict[str, Any]]
    stderr: str

    def tool_ends(self) -> list[dict[str, Any]]:
        """pi's `tool_execution_end` events for oraculum's tools, in order."""
        return [
            e
            for e in self.events
            if e.get("type") == "tool_execution_end"
            and str(e.get("toolName", "")).startswith(MCP_PREFIX)
        ]


def parse_events(stdout: bytes) -> list[dict[str, Any]]:
    """pi's JSON mode output: one JSON object per LF-terminated line."""
    return [json.loads(line) for line in stdout.split(b"\n") if line.strip()]


def pi_environment(root: Path) -> dict[str, str]:
    """A minimal environment for a pi whose home and agent dir live under ``root``, with no
    network activity of pi's own (version check, model catalog, telemetry)."""
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "PI_CODING_AGENT_DIR": str(root / "agent"),
        "PI_OFFLINE": "1",
        "PI_SKIP_VERSION_CHECK": "1",
        "PI_TELEMETRY": "0",
    }


async def run_pi(
    argv: list[str], *, cwd: Path, env: dict[str, str], timeout_s: float, what: str
) -> tuple[int, bytes, bytes]:
    """Run pi to its exit without stdin: (exit code, stdout, stderr). Past ``timeout_s`` pi is
    killed (no process outlives the test) and the run fails with the tail of its stderr."""
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        stdout, stderr = await asyncio.wait_for(proc.communicate(), timeout_s)
    except TimeoutError:
        proc.kill()
        _, stderr = await proc.communicate()
        raise AssertionError(
            f"{what} did not finish within {timeout_s:g}s; stderr:\n"
            + stderr.decode(errors="replace")[-3000:]
        ) from None
    assert proc.returncode is not None  # communicate() waited for the exit
    return proc.returncode, stdout, stderr


@dataclass(frozen=True)
class PiHome:
    """Where one pi lives: the MCP host and the bridge host both start from here."""

    tools: HostTools
    root: Path  # pi's home, agent dir and session store live here
    project: Path
    session: str

    @property
    def agent_dir(self) -> Path:
        return self.root / "agent"


@dataclass(frozen=True)
class PiHost(PiHome):
    def configure(
        self,
        base_url: str,
        oraculum_env: dict[str, str],
        *,
        stable_session: bool = True,
        **server: Any,
    ) -> None:
        """Write pi's `models.json` and `mcp.json` (``server``: more fields of its entry).
        Without ``stable_session`` every server process generates its own oraculum session."""
        self.agent_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        env = {**oraculum_env, "ORACULUM_SESSION": self.session} if stable_session else oraculum_env
        configs = {"models.json": models_config(base_url), "mcp.json": mcp_config(env, **server)}
        for name, data in configs.items():
            path = self.agent_dir / name
            path.write_text(json.dumps(data, indent=2))
            path.chmod(0o600)

    def environment(self) -> dict[str, str]:
        """No ORACULUM_* here: the `env` map of mcp.json must carry them."""
        return pi_environment(self.root)

    def argv(self, prompt: str) -> list[str]:
        return [
            *self.tools.pi,
            "--mode",
            "json",
            "--model",
            f"{PROVIDER}/{MODEL_ID}",
            "--session-dir",
            str(self.root / "sessions"),
            "--session-id",
            self.session,
            "--no-context-files",
            "--no-skills",
            "--no-prompt-templates",
            prompt,
        ]

    async def run(self, prompt: str, timeout_s: float = 90.0) -> PiRun:
        """One non-interactive pi invocation; pi stops its MCP servers when it exits."""
        code, stdout, stderr = await run_pi(
            self.argv(prompt),
            cwd=self.project,
            env=self.environment(),
            timeout_s=timeout_s,
            what="pi",
        )
        return PiRun(code, parse_events(stdout), stderr.decode(errors="replace"))
