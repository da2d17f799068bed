"""CLI start-up stays light: which modules a fresh process loads (never how long it takes).

Agents run the CLI many times a turn, so importing the CLI must not load what only some
commands need: the browser driver, the simulator's server, the MCP SDK, the archive builder,
the job engine, rich. Each case runs in a fresh interpreter, since this test process has long
since imported all of them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fresh_process import loaded_modules, present
from oraculum.cli.app import COMMANDS

# Every module a command lives in (a module may hold more than one command).
COMMAND_MODULES = sorted({target.split(":")[0] for target in COMMANDS.values()})

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


def test_loading_every_command_loads_no_command_library(tmp_path: Path) -> None:
    code = "from oraculum.cli.app import COMMANDS, load_command\nfor n in COMMANDS: load_command(n)"
    modules = loaded_modules(tmp_path, code)
    assert present(modules, COMMAND_MODULES) == COMMAND_MODULES
    assert present(modules, DEFERRED) == []


def test_a_named_command_loads_only_its_own_module(tmp_path: Path, project: Path) -> None:
    code = "from oraculum.cli import main\nassert main(['--json', 'presets']) == 0"
    modules = loaded_modules(tmp_path, code)
    commands = {m for m in modules if m.startswith("oraculum.cli.") and m.endswith("_cmd")}
    assert commands == {"oraculum.cli.presets_cmd"}


@pytest.mark.parametrize(
    ("argv", "module"),
    [
        (["--json", "status"], "status_cmd"),
        (["status"], "status_cmd"),
        (["--json", "read"], "read_cmd"),
        (["--json", "wait", "--timeout", "0"], "wait_cmd"),
    ],
)
def test_a_hot_command_loads_its_own_module_and_no_heavy_library(
    argv: list[str], module: str, tmp_path: Path, project: Path
) -> None:
    # What agents run many times a turn: the parser (click) and the job files, nothing more.
    modules = loaded_modules(tmp_path, f"from oraculum.cli import main\nmain({argv!r})")
    commands = {m for m in modules if m.startswith("oraculum.cli.") and m.endswith("_cmd")}
    assert commands == {f"oraculum.cli.{module}"}
    heavy = ("typer", "psutil", "pathspec", "oraculum.archive", "asyncio", "aiohttp", "playwright")
    assert present(modules, (*heavy, "mcp", "rookiepy", "zstandard")) == []
    if "--json" in argv:
        assert present(modules, ("rich",)) == []


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--help"], set(COMMAND_MODULES)),  # help lists every command, with its summary
        (["clean", "--help"], {"oraculum.cli.cancel_cmd"}),  # clean lives in cancel's module
        (["stauts"], set()),  # a typo is matched against the names alone
    ],
)
def test_help_loads_every_command_and_a_typo_none(
    argv: list[str], expected: set[str], tmp_path: Path
) -> None:
    code = f"from oraculum.cli import main\nmain({argv!r})"
    modules = loaded_modules(tmp_path, code)
    commands = {m for m in modules if m.startswith("oraculum.cli.") and m.endswith("_cmd")}
    assert commands == expected


@pytest.mark.parametrize("argv", [["--version"], ["--json", "presets"]])
def test_the_lightest_commands_load_no_pydantic(
    argv: list[str], tmp_path: Path, project: Path
) -> None:
    # typer validated its parameters with pydantic; click does not, and these read no job.
    modules = loaded_modules(tmp_path, f"from oraculum.cli import main\nassert main({argv!r}) == 0")
    assert present(modules, ("pydantic", "typer", "rich", "oraculum.jobs")) == []


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
