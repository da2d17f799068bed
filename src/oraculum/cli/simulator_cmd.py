"""`oraculum simulator serve`: run the local ChatGPT (or Grok) look-alike until Ctrl+C."""

from __future__ import annotations

import errno
import signal
from typing import TYPE_CHECKING, Any

import typer

from oraculum.cli.app import app, emit
from oraculum.core.errors import OracleError
from oraculum.simulator.scenarios import PICKERS, PROVIDERS, SHELLS, ScenarioError

if TYPE_CHECKING:
    from rich.console import Console

simulator_app = typer.Typer(
    help="The local ChatGPT and Grok look-alikes that tests and demos drive.",
    no_args_is_help=True,
)
app.add_typer(simulator_app, name="simulator")


def _render(info: dict[str, Any], console: Console) -> None:
    if info["provider"] == "grok":
        console.print("oraculum simulator (grok)")
    else:
        console.print(f"oraculum simulator ({info['shell']} shell, {info['picker']} picker)")
    console.print(f"  url:      {info['url']}/")
    if info["require_login"]:
        console.print(f"  sign in:  {info['sign_in_url']}  (any email, any password)")
    else:
        console.print("  sign in:  not required (--no-login)")
    console.print(
        f"  knobs:    {info['url']}/?scenario=challenge&think_ms=500  (docs/simulator.md)"
    )
    if info["provider"] == "grok":
        console.print(f"  chats:    {info['url']}/c/<id>  (and {info['url']}/chat/<id>)")
    console.print(f"  control:  POST {info['url']}/__sim/scenario, GET {info['url']}/__sim/state")
    console.print("Press Ctrl+C to stop.")


async def _serve(options: dict[str, Any]) -> None:
    import asyncio

    # The server (aiohttp) loads only when this command runs.
    from oraculum.simulator import run_simulator

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):
            pass
    async with run_simulator(**options) as sim:
        defaults = sim.state.defaults
        info = {
            "provider": sim.provider,
            "url": sim.url,
            "sign_in_url": sim.sign_in_url,
            "shell": defaults.shell,
            "picker": defaults.picker,
            "require_login": sim.state.require_login,
            "scenario": defaults.to_dict(),
        }
        emit(info, lambda console: _render(info, console))
        await stop.wait()


@simulator_app.command("serve")
def serve_command(
    port: int = typer.Option(8765, "--port", help="TCP port on 127.0.0.1 (0 picks a free one)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Loopback address to bind."),
    provider: str = typer.Option(
        "chatgpt", "--provider", help=f"Site to imitate: {' | '.join(PROVIDERS)}."
    ),
    shell: str = typer.Option(
        "classic", "--shell", help=f"ChatGPT page shell: {' | '.join(SHELLS)}."
    ),
    picker: str = typer.Option(
        "power", "--picker", help=f"ChatGPT model picker: {' | '.join(PICKERS)}."
    ),
    scenario: str = typer.Option(
        "", "--scenario", help="Default behaviours, comma-separated (see docs/simulator.md)."
    ),
    answer: str = typer.Option("default", "--answer", help="Default answer template."),
    think_ms: int = typer.Option(1200, "--think-ms", help="Delay before the first token."),
    token_ms: int = typer.Option(20, "--token-ms", help="Delay between streamed tokens."),
    no_login: bool = typer.Option(False, "--no-login", help="Serve pages without signing in."),
) -> None:
    """Serve the simulator on loopback and print its URL; stops on Ctrl+C."""
    import asyncio  # ~20 ms to import: only this command needs an event loop

    knobs: dict[str, Any] = {
        "picker": picker,
        "answer": answer,
        "think_ms": think_ms,
        "token_ms": token_ms,
    }
    if scenario:
        knobs["scenario"] = scenario
    options = {
        "host": host,
        "port": port,
        "provider": provider,
        "shell": shell,
        "require_login": not no_login,
        **knobs,
    }
    try:
        asyncio.run(_serve(options))
    except ScenarioError as error:
        raise OracleError("invalid_argument", str(error), rejected_value=str(error)) from None
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            raise OracleError(
                "simulator_port_in_use",
                f"Port {port} on {host} is already in use.",
                rejected_value=str(port),
                suggested_next_step="Pass --port 0 to pick a free port, or another --port.",
            ) from None
        raise
    except KeyboardInterrupt:
        pass
