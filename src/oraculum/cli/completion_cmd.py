"""`oraculum completion bash|zsh|fish`: the shell's completion script, for its start-up file."""

from __future__ import annotations

import click

from oraculum.cli.base import Command, argument
from oraculum.cli.output import emit

__all__ = ["COMPLETE_VAR", "completion_command"]

# The variable click's completion reads (`_<PROG>_COMPLETE`): the script sets it when the
# shell asks oraculum for the words that can come next.
COMPLETE_VAR = "_ORACULUM_COMPLETE"
SHELLS = ("bash", "zsh", "fish")


@click.command(
    "completion",
    cls=Command,
    examples=(
        "oraculum completion bash > ~/.oraculum-complete.bash  # then in ~/.bashrc:"
        " . ~/.oraculum-complete.bash",
        "oraculum completion zsh > ~/.oraculum-complete.zsh    # then in ~/.zshrc, after"
        " compinit: . ~/.oraculum-complete.zsh",
        "oraculum completion fish > ~/.config/fish/completions/oraculum.fish",
    ),
)
@argument("shell", type=click.Choice(SHELLS), help="bash, zsh or fish.")
def completion_command(shell: str) -> None:
    """Print the shell completion script for bash, zsh or fish (commands, options, values)."""
    from click.shell_completion import get_completion_class

    from oraculum.cli import PROG
    from oraculum.cli.app import app

    completion = get_completion_class(shell)
    assert completion is not None  # the argument is one of SHELLS
    script = completion(app, {}, PROG, COMPLETE_VAR).source()
    emit({"shell": shell, "script": script}, text=script.rstrip("\n"))
