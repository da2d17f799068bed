"""CLI start-up stays light: which modules a fresh process loads (never how long it takes).

Agents run the CLI many times a turn, so importing the CLI must not load what only some
commands need: the browser driver, the simulator's server, the MCP SDK, the archive builder,
the job engine, rich. Each case runs in a fresh interpreter, since this test process has long
since imported all of them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from oraculum.cli import COMMAND_MODULES

# Loaded by no `import oraculum.cli`: each only inside the commands that need it.
DEFERRED = (
    "aiohttp",
    "playwright",
    "mcp",
    "rookiepy",
    "zstandard",
    "markdown_it",
    "psutil",
    "asyncio",
    "rich",
    "oraculum.archive",
    "oraculum.auth",
    "oraculum.browser",
    "oraculum.core.config",
    "oraculum.jobs",
    "oraculum.mcp",
    "oraculum.service.status",
    "oraculum.simulator.runner",
)
# Never loaded by a command that only reads the job files.
BROWSER_SERVER_AND_SDK = ("aiohttp", "playwright", "mcp", "rookiepy", "zstandard", "rich")


def loaded_modules(tmp_path: Path, code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    listing = tmp_path / "modules.json"
    probe = f"{code}\nimport json, sys\nopen(sys.argv[1], 'w').write(json.dumps(list(sys.modules)))"
    subprocess.run(
        [sys.executable, "-c", probe, str(listing)], check=True, capture_output=True, timeout=60
    )
    return set(json.loads(listing.read_text()))


def present(modules: set[str], names: Sequence[str]) -> list[str]:
    """Which of ``names`` (packages count with their submodules) ``modules`` holds."""
    return [n for n in names if any(m == n or m.startswith(f"{n}.") for m in modules)]


def test_registering_every_command_loads_no_command_library(tmp_path: Path) -> None:
    modules = loaded_modules(tmp_path, "import oraculum.cli\noraculum.cli.load_commands()")
    assert present(modules, [f"oraculum.cli.{m}" for m in COMMAND_MODULES]) == list(
        f"oraculum.cli.{m}" for m in COMMAND_MODULES
    )
    assert present(modules, DEFERRED) == []


def test_a_named_command_loads_only_its_own_module(tmp_path: Path, project: Path) -> None:
    code = "from oraculum.cli import main\nassert main(['--json', 'presets']) == 0"
    modules = loaded_modules(tmp_path, code)
    commands = {m for m in modules if m.startswith("oraculum.cli.") and m.endswith("_cmd")}
    assert commands == {"oraculum.cli.presets_cmd"}


@pytest.mark.parametrize("argv", [["--json", "status"], ["status"], ["--json", "read"]])
def test_the_fast_start_loads_no_command_module_and_no_typer(
    argv: list[str], tmp_path: Path, project: Path
) -> None:
    modules = loaded_modules(tmp_path, f"from oraculum.cli import main\nmain({argv!r})")
    assert {m for m in modules if m.startswith("oraculum.cli.") and m.endswith("_cmd")} == set()
    assert present(modules, ("typer", "click")) == []


@pytest.mark.parametrize("argv", [["--help"], ["clean", "--help"], ["stauts"]])
def test_help_and_unknown_names_register_every_command(argv: list[str], tmp_path: Path) -> None:
    # `clean` lives in cancel_cmd, and a typo must be matched against every command name.
    code = f"from oraculum.cli import main\nmain({argv!r})"
    modules = loaded_modules(tmp_path, code)
    commands = {m for m in modules if m.startswith("oraculum.cli.") and m.endswith("_cmd")}
    assert commands == {f"oraculum.cli.{m}" for m in COMMAND_MODULES}


@pytest.mark.parametrize(
    "argv",
    [
        ["--version"],
        ["--json", "status"],
        ["--json", "presets"],
        ["--json", "config", "show"],
        ["--json", "preflight", "--provider", "test", "--session", "startup"],
    ],
)
def test_light_command_loads_no_browser_server_or_rich(
    argv: list[str], tmp_path: Path, project: Path
) -> None:
    modules = loaded_modules(tmp_path, f"from oraculum.cli import main\nassert main({argv!r}) == 0")
    assert present(modules, BROWSER_SERVER_AND_SDK) == []


def test_hot_services_load_no_archive_builder_or_psutil(tmp_path: Path) -> None:
    # status, read, wait and preflight run many times per job; psutil and the archive builder
    # load only where a worker is checked or an archive is built.
    code = "import oraculum.service.preflight, oraculum.service.read, oraculum.service.wait"
    modules = loaded_modules(tmp_path, code)
    heavy = (*BROWSER_SERVER_AND_SDK, "psutil", "pathspec", "oraculum.archive")
    assert present(modules, heavy) == []
