"""Issue 38 §11: help a person can use (examples, `-h`, values named by what they are, required
arguments marked, commands sorted) and shell completion, through the real `oraculum`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest

from oraculum.cli import main
from oraculum.cli.app import COMMANDS, load_command

ORACULUM = str(Path(sys.executable).with_name("oraculum"))
# The commands a person starts with: each help page ends with examples.
MAIN_COMMANDS = ("submit", "followup", "read", "wait", "status", "demo")
# click's default metavars name a Python type, not what the value is.
TYPE_NAMES = re.compile(r"\b(TEXT|INTEGER|FLOAT|PATH|FILENAME|DIRECTORY|BOOLEAN|UUID|RANGE)\b")


def oraculum(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ORACULUM, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, **(env or {})},
    )


def every_command() -> list[list[str]]:
    """Each command line that has a help page: every command and every subcommand."""
    lines: list[list[str]] = []
    for name in sorted(COMMANDS):
        command = load_command(name)
        lines.append([name])
        if isinstance(command, click.Group):
            lines += [[name, sub] for sub in sorted(command.commands)]
    return lines


@pytest.mark.parametrize("name", MAIN_COMMANDS)
def test_the_main_commands_help_shows_examples_and_dash_h_is_help(name: str) -> None:
    short, long = oraculum(name, "-h"), oraculum(name, "--help")
    assert short.returncode == 0 and short.stdout == long.stdout, short.stderr
    examples = short.stdout.split("\nExamples:\n", 1)[1].splitlines()
    assert examples and all(line.startswith(f"  oraculum {name}") for line in examples)


def value_names(page: str) -> list[str]:
    """What a help page names values by: its usage line and the term of each option and
    argument row (the prose beside them may say PATH and mean the variable)."""
    lines = page.splitlines()
    terms = [lines[0]]
    section = ""
    for line in lines[1:]:
        if line and not line.startswith(" "):
            section = line
        # A row starts two spaces in; its help wrapped onto the next lines, further in.
        elif section in ("Options:", "Positional arguments:") and re.match(r"  \S", line):
            terms.append(re.split(r"\s{2,}", line.strip())[0])
    return terms


def test_help_names_no_python_type_on_any_page(capsys: pytest.CaptureFixture[str]) -> None:
    for line in every_command():
        assert main([*line, "-h"]) == 0, line
        page = capsys.readouterr().out
        assert page.startswith(f"Usage: oraculum {' '.join(line)}"), line
        named = value_names(page)
        assert len(named) > 1, page  # the usage line and at least -h
        assert not [n for n in named if TYPE_NAMES.search(n)], (line, named)
        assert "<str>" not in page and "list[" not in page


def test_required_arguments_are_shown_as_required() -> None:
    page = oraculum("followup", "-h").stdout
    assert "Usage: oraculum followup [OPTIONS] JOB [PROMPT] [FILES]..." in page
    arguments = page.split("Positional arguments:\n", 1)[1].split("\n\n", 1)[0]
    job, prompt = arguments.splitlines()[:2]
    assert job.split()[0] == "JOB" and job.endswith("[required]")
    assert prompt.split()[0] == "[PROMPT]" and "[required]" not in prompt


def test_commands_are_listed_sorted() -> None:
    page = oraculum("-h").stdout
    listed = page.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    names = [line.split()[0] for line in listed.splitlines()]
    assert names == sorted(COMMANDS)
    grouped = oraculum("schedule", "-h").stdout.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    assert [line.split()[0] for line in grouped.splitlines()] == [
        "cancel",
        "list",
        "show",
        "submit",
    ]


@pytest.mark.parametrize(
    ("shell", "marker"),
    [("bash", "complete -o nosort -F"), ("zsh", "#compdef oraculum"), ("fish", "complete")],
)
def test_completion_prints_the_shell_script(shell: str, marker: str) -> None:
    done = oraculum("completion", shell)
    assert done.returncode == 0, done.stderr
    assert marker in done.stdout and "_ORACULUM_COMPLETE" in done.stdout


def test_the_completion_script_completes_a_command_name(tmp_path: Path) -> None:
    # What the bash script asks when a person types `oraculum sub<TAB>`.
    done = oraculum(
        env={"_ORACULUM_COMPLETE": "bash_complete", "COMP_WORDS": "oraculum sub", "COMP_CWORD": "1"}
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["plain,subagent", "plain,submit"]
    options = oraculum(
        env={
            "_ORACULUM_COMPLETE": "bash_complete",
            "COMP_WORDS": "oraculum status --a",
            "COMP_CWORD": "2",
        }
    )
    assert options.stdout.splitlines() == ["plain,--all-projects"]


def test_bash_sourcing_the_printed_script_completes_a_command_name(tmp_path: Path) -> None:
    script = tmp_path / "oraculum-complete.bash"
    script.write_text(oraculum("completion", "bash").stdout)
    # What bash does on `oraculum sub<TAB>`: call the function the script registered.
    words = f". {script}; COMP_WORDS=(oraculum sub); COMP_CWORD=1; _oraculum_completion oraculum"
    done = subprocess.run(
        ["bash", "--norc", "-c", words + '; printf "%s\\n" "${COMPREPLY[@]}"'],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PATH": f"{Path(ORACULUM).parent}:{os.environ['PATH']}"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["subagent", "submit"]


def test_an_unknown_shell_is_a_usage_error() -> None:
    done = oraculum("--json", "completion", "tcsh")
    assert done.returncode == 2 and '"invalid_argument"' in done.stdout
