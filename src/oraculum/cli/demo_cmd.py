"""`oraculum demo`: a real job against the built-in simulator, shown live."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from oraculum.cli.base import Command
from oraculum.cli.output import MODE, console, emit, print_answer

if TYPE_CHECKING:
    from rich.console import Console
    from rich.status import Status as Spinner

    from oraculum.jobs.model import Job


@click.command(
    "demo",
    cls=Command,
    examples=(
        "oraculum demo",
        "oraculum demo --provider grok",
        "oraculum demo --provider gemini",
        "oraculum demo --answer files --json",
        "oraculum demo --council",
    ),
)
@click.option(
    "--provider",
    metavar="NAME",
    default="chatgpt",
    show_default=True,
    help="The simulator to run against: chatgpt, grok or gemini.",
)
@click.option(
    "--shell",
    metavar="NAME",
    default="classic",
    show_default=True,
    help="ChatGPT simulator shell: classic or redesign.",
)
@click.option(
    "--picker",
    metavar="NAME",
    default="power",
    show_default=True,
    help="ChatGPT model picker: legacy, chips, intelligence, power.",
)
@click.option(
    "--answer",
    metavar="NAME",
    default="receipt",
    show_default=True,
    help="The simulated answer: receipt (collected whole) or default, files, files_only, "
    "markdown, tricky, echo (docs/simulator.md; default and files show partial collection).",
)
@click.option("--raw", is_flag=True, help="Print the answer as plain text.")
@click.option(
    "--council",
    is_flag=True,
    help="Run a council instead: ChatGPT and Grok, each against its simulator, one council.md.",
)
def demo_command(
    provider: str, shell: str, picker: str, answer: str, raw: bool, council: bool
) -> None:
    """Run one real job end to end against a built-in simulator (ChatGPT, Grok, Gemini; no
    network)."""
    from oraculum.service.demo import run_demo

    if council:
        _demo_council(shell, picker)
        return

    spinner: Spinner | None = None if MODE.json else console().status("starting…")

    def on_step(text: str) -> None:
        if not MODE.json:
            console().print(f"[dim]·[/] {text}", markup=True, highlight=False)

    def on_phase(job: Job, elapsed: float) -> None:
        if spinner is not None:
            spinner.update(f"{job.phase.value}  [dim]{elapsed:5.1f}s[/]")

    if spinner is not None:
        spinner.start()
    try:
        result = run_demo(
            shell=shell,
            picker=picker,
            provider=provider,
            answer=answer,
            on_phase=on_phase,
            on_step=on_step,
        )
    finally:
        if spinner is not None:
            spinner.stop()
    if result.error is not None:
        raise result.error

    def render(out: Console) -> None:
        out.print("[green]✓[/] ", end="")
        out.print(result.headline, markup=False, highlight=False)
        text = result.response or ""
        if out.is_terminal and not raw:
            out.rule("answer")
            print_answer(out, text)
        else:  # the answer as saved, whole, under a plain separator
            out.print("--- answer ---", markup=False)
            out.print(text.rstrip("\n"), markup=False, highlight=False, soft_wrap=True)

    emit(result.to_json(), render)


def _demo_council(shell: str, picker: str) -> None:
    from oraculum.service.demo import run_demo_council

    def on_step(text: str) -> None:
        if not MODE.json:
            console().print(f"[dim]·[/] {text}", markup=True, highlight=False)

    result = run_demo_council(shell=shell, picker=picker, on_step=on_step)
    if result.error is not None:
        raise result.error
    emit(result.to_json(), text=result.text("cli"))
