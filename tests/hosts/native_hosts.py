"""Driving Claude Code, Codex and opencode non-interactively against `oraculum mcp`.

Each host is configured from the README's own snippet for it (`readme_host_block`), with only the
placeholders filled in: `oraculum` becomes this venv's absolute path, the test home's
`ORACULUM_*` variables and a fixed `ORACULUM_SESSION` reach the server the way the README says
for that host, and the model is the scripted endpoint. Every host runs with a private HOME and
a minimal environment, so nothing of the machine's own set-up leaks in.
"""

from __future__ import annotations

import json
import os
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from readme_snippets import readme_host_block, readme_host_blocks

from .pi_host import oraculum_executable, run_pi
from .scripted_model import MODEL_ID

PLACEHOLDER = "oraculum"  # the README's command, on PATH; the tests put this venv's in its place


def filled_command(argv: list[str]) -> list[str]:
    assert argv[0] == PLACEHOLDER, argv
    return [str(oraculum_executable()), *argv[1:]]


def base_environment(root: Path) -> dict[str, str]:
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8"}


def write_private(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.write_text(text)
    path.chmod(0o600)
    return path


@dataclass(frozen=True)
class HostRun:
    returncode: int
    stdout: str
    stderr: str


@dataclass(frozen=True)
class NativeHost:
    """One host binary with its private home under ``root``, run in ``project``."""

    binary: Path
    root: Path
    project: Path

    async def _run(
        self, argv: list[str], env: dict[str, str], timeout_s: float, what: str
    ) -> HostRun:
        code, out, err = await run_pi(
            [str(self.binary), *argv], cwd=self.project, env=env, timeout_s=timeout_s, what=what
        )
        return HostRun(code, out.decode(errors="replace"), err.decode(errors="replace"))


@dataclass(frozen=True)
class ClaudeCode(NativeHost):
    """`claude -p` as the README's headless recipe has it: the server given by
    `--mcp-config` (so the first turn already has its tools) and allowed by `--allowedTools`."""

    LABEL = "Claude Code"
    PREFIX = "mcp__oraculum__"

    def readme_entry(self) -> dict[str, Any]:
        block = readme_host_block(self.LABEL, "json")
        entry: dict[str, Any] = json.loads(block)["mcpServers"]["oraculum"]
        return entry

    def readme_headless_argv(self) -> list[str]:
        return self._readme_command("claude -p")

    def readme_add_argv(self) -> list[str]:
        return self._readme_command("mcp add")

    def _readme_command(self, words: str) -> list[str]:
        (argv,) = [shlex.split(b) for b in readme_host_blocks(self.LABEL, "sh") if words in b]
        return argv

    async def run(
        self,
        prompt: str,
        base_url: str,
        server_env: dict[str, str],
        *,
        profile: str | None = None,
        tool_timeout_s: float = 60,
        timeout_s: float = 180,
    ) -> HostRun:
        entry = self.readme_entry()
        command = filled_command([entry["command"], *entry["args"]])
        if profile is not None:
            command += ["--profile", profile]
        server = {**entry, "command": command[0], "args": command[1:], "env": server_env}
        config = write_private(
            self.root / "oraculum-mcp.json", json.dumps({"mcpServers": {"oraculum": server}})
        )
        readme = self.readme_headless_argv()
        assert readme[:2] == ["claude", "-p"], readme
        flags = readme[2:-1]  # the README's flags; its prompt and file name are examples
        flags[flags.index("--mcp-config") + 1] = str(config)
        env = {
            **self.environment(),
            "ANTHROPIC_BASE_URL": base_url.removesuffix("/v1"),
            "ANTHROPIC_API_KEY": "scripted-test-key",
            "MCP_TOOL_TIMEOUT": str(int(tool_timeout_s * 1000)),
        }
        argv = ["-p", *flags, "--strict-mcp-config", "--output-format", "json", prompt]
        return await self._run(argv, env, timeout_s, "claude")

    def environment(self) -> dict[str, str]:
        return {
            **base_environment(self.root),
            "CLAUDE_CONFIG_DIR": str(self.root / "claude"),
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
        }

    async def command(self, argv: list[str], timeout_s: float = 60) -> HostRun:
        """A `claude` subcommand (`mcp add`, `mcp list`) in the project."""
        return await self._run(argv, self.environment(), timeout_s, "claude " + argv[0])


@dataclass(frozen=True)
class Codex(NativeHost):
    """`codex exec` with the README's `[mcp_servers.oraculum]` table in its config.toml; the
    server's variables come from Codex's own environment through the table's `env_vars`."""

    LABEL = "Codex"
    NAMESPACE = "mcp__oraculum"

    def readme_table(self) -> dict[str, Any]:
        block = readme_host_block(self.LABEL, "toml")
        table: dict[str, Any] = tomllib.loads(block)["mcp_servers"]["oraculum"]
        return table

    async def run(
        self,
        prompt: str,
        base_url: str,
        server_env: dict[str, str],
        *,
        profile: str | None = None,
        tool_timeout_s: float = 60,
        timeout_s: float = 180,
        without: tuple[str, ...] = (),
    ) -> HostRun:
        """``without``: keys of the README's table left out (to show what each is for)."""
        table = {k: v for k, v in self.readme_table().items() if k not in without}
        command = filled_command([table["command"], *table["args"]])
        if profile is not None:
            command += ["--profile", profile]
        server = {**table, "command": command[0], "args": command[1:]}
        server["tool_timeout_sec"] = tool_timeout_s
        config = {
            "model": MODEL_ID,
            "model_provider": "scripted",
            "model_providers": {
                "scripted": {"name": "scripted", "base_url": base_url, "wire_api": "responses"}
            },
            "mcp_servers": {"oraculum": server},
        }
        codex_home = self.root / "codex"
        write_private(codex_home / "config.toml", toml_text(config))
        env = {
            **base_environment(self.root),
            **server_env,
            "CODEX_HOME": str(codex_home),
            "OPENAI_API_KEY": "scripted-test-key",
        }
        argv = ["exec", "--json", "--skip-git-repo-check", prompt]
        return await self._run(argv, env, timeout_s, "codex")


@dataclass(frozen=True)
class Opencode(NativeHost):
    """`opencode run` with the README's `opencode.json` in the project, plus a provider that
    points at the scripted endpoint (an OpenAI-compatible one)."""

    LABEL = "opencode"
    PREFIX = "oraculum_"

    def readme_config(self) -> dict[str, Any]:
        block = readme_host_block(self.LABEL, "json")
        config: dict[str, Any] = json.loads(block)
        return config

    async def run(
        self,
        prompt: str,
        base_url: str,
        server_env: dict[str, str],
        *,
        profile: str | None = None,
        tool_timeout_s: float = 60,
        timeout_s: float = 240,
    ) -> HostRun:
        config = self.readme_config()
        entry = config["mcp"]["oraculum"]
        command = filled_command(entry["command"])
        if profile is not None:
            command += ["--profile", profile]
        config["mcp"]["oraculum"] = {
            **entry,
            "command": command,
            "environment": server_env,
            "timeout": int(tool_timeout_s * 1000),
        }
        config["provider"] = {
            "scripted": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "scripted",
                "options": {"baseURL": base_url, "apiKey": "scripted-test-key"},
                "models": {MODEL_ID: {"name": MODEL_ID, "tool_call": True}},
            }
        }
        config["model"] = f"scripted/{MODEL_ID}"
        write_private(self.project / "opencode.json", json.dumps(config, indent=2))
        env = {
            **base_environment(self.root),
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
            "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
        }
        argv = ["run", "--format", "json", prompt]
        return await self._run(argv, env, timeout_s, "opencode")


def toml_text(data: dict[str, Any], prefix: str = "") -> str:
    """A small TOML writer for Codex's config (strings, numbers, booleans, string lists and
    nested tables): the tests need no TOML library beyond the standard reader."""
    lines: list[str] = []
    tables: list[tuple[str, dict[str, Any]]] = []
    for key, value in data.items():
        if isinstance(value, dict):
            tables.append((f"{prefix}{key}", value))
        else:
            lines.append(f"{key} = {json.dumps(value)}")
    text = "\n".join(lines) + ("\n" if lines else "")
    for name, table in tables:
        scalars = {k: v for k, v in table.items() if not isinstance(v, dict)}
        nested = {k: v for k, v in table.items() if isinstance(v, dict)}
        if scalars:
            text += f"\n[{name}]\n" + toml_text(scalars)
        text += toml_text(nested, f"{name}.")
    return text
