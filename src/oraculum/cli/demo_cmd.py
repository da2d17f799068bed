"""`oraculum demo`: a real job against the built-in simulator, shown live."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from oraculum.cli.app import MODE, app, console, emit
from oraculum.cli.output import print_answer

if TYPE_CHECKING:
    from rich.console import Console
    from rich.status import Status as Spinner

    from oraculum.jobs.model import Job


@app.command("demo")
def demo_command(
    provider: str = typer.Option(
        "chatgpt", "--provider", help="The simulator to run against: chatgpt or grok."
    ),
    shell: str = typer.Option("classic", help="ChatGPT simulator shell: classic or redesign."),
    picker: str = typer.Option(
        "power", help="ChatGPT model picker: legacy, chips, intelligence, power."
    ),
    answer: str = typer.Option(
        "receipt",
        "--answer",
        help="The simulated answer: receipt (collected whole) or default, files, files_only, "
        "markdown, tricky, echo (docs/simulator.md; default and files show partial collection).",
    ),
    raw: bool = typer.Option(False, "--raw", help="Print the answer as plain text."),
) -> None:
    """Run one real job end to end against the built-in ChatGPT or Grok simulator (no
    network)."""
    from oraculum.service.demo import run_demo

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
