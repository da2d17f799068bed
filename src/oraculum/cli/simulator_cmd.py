"""`oraculum simulator serve|use`: run the local ChatGPT (or Grok) look-alike until Ctrl+C, and
point later jobs at a running one (or back)."""

from __future__ import annotations

import errno
import signal
from typing import TYPE_CHECKING, Any

import click

from oraculum.cli.base import Command, Group, argument
from oraculum.cli.output import emit
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.simulator.locales import LOCALES
from oraculum.simulator.scenarios import PICKERS, PROVIDERS, SHELLS, ScenarioError

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["simulator_group"]


@click.group(
    "simulator",
    cls=Group,
    examples=(
        "oraculum simulator serve --port 0",
        "oraculum simulator serve --provider grok --no-login",
    ),
)
def simulator_group() -> None:
    """The local ChatGPT, Grok and Gemini look-alikes that tests and demos drive."""


def _render(info: dict[str, Any], console: Console) -> None:
    if info["provider"] != "chatgpt":  # the shell and picker knobs are ChatGPT's
        console.print(f"oraculum simulator ({info['provider']})")
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
    if info["provider"] == "gemini":
        console.print(f"  chats:    {info['url']}/app  (new), {info['url']}/app/<id>")
    console.print(f"  control:  POST {info['url']}/__sim/scenario, GET {info['url']}/__sim/state")
    console.print(
        f"  use it:   oraculum simulator use {info['url']}  (real-use path; --off undoes)"
    )
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


@simulator_group.command("serve")
@click.option(
    "--port",
    type=int,
    metavar="PORT",
    default=8765,
    show_default=True,
    help="TCP port on 127.0.0.1 (0 picks a free one).",
)
@click.option(
    "--host",
    metavar="ADDRESS",
    default="127.0.0.1",
    show_default=True,
    help="Loopback address to bind.",
)
@click.option(
    "--provider",
    metavar="NAME",
    default="chatgpt",
    show_default=True,
    help=f"Site to imitate: {' | '.join(PROVIDERS)}.",
)
@click.option(
    "--shell",
    metavar="NAME",
    default="classic",
    show_default=True,
    help=f"ChatGPT page shell: {' | '.join(SHELLS)}.",
)
@click.option(
    "--picker",
    metavar="NAME",
    default="power",
    show_default=True,
    help=f"ChatGPT model picker: {' | '.join(PICKERS)}.",
)
@click.option(
    "--locale",
    metavar="LANG",
    default="en",
    show_default=True,
    help=f"Page UI language: {' | '.join(LOCALES)}.",
)
@click.option(
    "--scenario",
    metavar="FLAGS",
    default="",
    help="Default behaviours, comma-separated (see docs/simulator.md).",
)
@click.option(
    "--answer",
    metavar="NAME",
    default="default",
    show_default=True,
    help="Default answer template.",
)
@click.option(
    "--think-ms",
    type=int,
    metavar="MS",
    default=1200,
    show_default=True,
    help="Delay before the first token.",
)
@click.option(
    "--token-ms",
    type=int,
    metavar="MS",
    default=20,
    show_default=True,
    help="Delay between streamed tokens.",
)
@click.option("--no-login", is_flag=True, help="Serve pages without signing in.")
def serve_command(
    port: int,
    host: str,
    provider: str,
    shell: str,
    picker: str,
    locale: str,
    scenario: str,
    answer: str,
    think_ms: int,
    token_ms: int,
    no_login: bool,
) -> None:
    """Serve the simulator on loopback and print its URL; stops on Ctrl+C."""
    import asyncio  # ~20 ms to import: only this command needs an event loop

    knobs: dict[str, Any] = {
        "picker": picker,
        "locale": locale,
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
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT, str(error), rejected_value=str(error)
        ) from None
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            raise OracleError(
                ErrorCode.SIMULATOR_PORT_IN_USE,
                f"Port {port} on {host} is already in use.",
                rejected_value=str(port),
                suggested_next_step="Pass --port 0 to pick a free port, or another --port.",
            ) from None
        raise
    except KeyboardInterrupt:
        pass


@simulator_group.command(
    "use",
    cls=Command,
    examples=(
        "oraculum simulator use http://127.0.0.1:8765",
        "oraculum simulator use --off",
    ),
)
@argument("url", required=False, help="The running simulator's URL (`simulator serve` prints it).")
@click.option(
    "--provider",
    metavar="NAME",
    help="The provider whose jobs go there (default: the simulator's).",
)
@click.option("--off", is_flag=True, help="Put your own global config back.")
def use_command(url: str | None, provider: str | None, off: bool) -> None:
    """Point later jobs at a running simulator (a seed of its own, signed in through it), so the
    real-use path runs against it; --off restores your config byte for byte."""
    from oraculum.service.simulator_use import stop_using_simulator, use_simulator

    if off == (url is not None):
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            "Pass the simulator's URL, or --off (not both).",
            suggested_next_step="oraculum simulator use http://127.0.0.1:8765",
        )
    result = stop_using_simulator() if url is None else use_simulator(url, provider)
    emit(result.to_json(), text=result.text("cli"))
