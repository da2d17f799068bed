"""`oraculum browser start|stop|status|login`: the managed browser (keeper) of the managed
transport (docs/transports.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from oraculum.cli.base import Group, argument
from oraculum.cli.output import emit

if TYPE_CHECKING:
    from rich.console import Console

    from oraculum.core.config import Config

__all__ = ["browser_group"]


@click.group(
    "browser",
    cls=Group,
    examples=("oraculum browser start --headed", "oraculum browser login grok"),
)
def browser_group() -> None:
    """The managed browser jobs use when browser.transport is managed."""


def _config() -> Config:
    from oraculum.core.config import load_config

    # Transport settings are global-only, so the global file is the whole story here.
    return load_config().config


def _status() -> dict[str, Any]:
    import asyncio

    from oraculum.browser.keeper import keeper_status

    config = _config()
    status = asyncio.run(keeper_status())
    status["transport"] = config.browser.transport
    if config.browser.transport == "relay":
        status["relay"] = asyncio.run(_relay_status(config))
    return status


async def _relay_status(config: Config) -> dict[str, Any]:
    """Whether the relay endpoint proves itself now (reachability, not sign-in)."""
    from oraculum.browser.relay import prove_relay
    from oraculum.core.errors import OracleError

    relay = config.browser.relay
    shown: dict[str, Any] = {"enabled": relay.enabled, "endpoint": relay.endpoint}
    try:
        endpoint = await prove_relay(relay.endpoint, enabled=relay.enabled)
    except OracleError as error:
        return {**shown, "proven": False, "problem": f"[{error.code}] {error.message}"}
    return {**shown, "proven": True, "browserId": endpoint.browser_id}


def _render_status(status: dict[str, Any], console: Console) -> None:
    if not status["running"]:
        console.print(f"managed browser: not running (profile {status['profileDir']})")
    else:
        proven = "proven" if status["proven"] else "NOT proven"
        mode = "headed" if status.get("headed") else "headless"
        console.print(
            f"managed browser: running, pid {status['pid']}, {mode}, DevTools on "
            f"127.0.0.1:{status['port']} ({proven}), {status.get('tabs', '?')} tab(s)",
            markup=False,
        )
    if status.get("problem"):
        console.print(f"  problem: {status['problem']}", markup=False)
    console.print(f"browser.transport: {status['transport']}", markup=False)
    relay = status.get("relay")
    if relay is not None:
        verdict = "proven" if relay["proven"] else relay["problem"]
        console.print(f"relay {relay['endpoint']}: {verdict}", markup=False)


@browser_group.command("start")
@click.option(
    "--headed/--headless",
    default=None,
    help="Override browser.managed.headed (default: headed when a display exists).",
)
def start_command(headed: bool | None) -> None:
    """Start the managed browser (a no-op when it already runs)."""
    from oraculum.browser.keeper import start_keeper

    _, started = start_keeper(_config(), headed=headed)
    status = {"started": started, **_status()}
    emit(status, lambda console: _render_status(status, console))


@browser_group.command("stop")
def stop_command() -> None:
    """Quit the managed browser (only the one oraculum started and recorded)."""
    from oraculum.browser.keeper import stop_keeper

    stopped = stop_keeper()
    text = "managed browser stopped" if stopped else "managed browser was not running"
    emit({"stopped": stopped}, text=text)


@browser_group.command("status")
def status_command() -> None:
    """Whether the managed browser runs and proves its endpoint (and, on the relay transport,
    whether the relay endpoint does)."""
    status = _status()
    emit(status, lambda console: _render_status(status, console))


@browser_group.command("login")
@argument(
    "provider",
    required=False,
    default="chatgpt",
    help="Provider to sign in to (chatgpt, grok, gemini).",
)
def login_command(provider: str) -> None:
    """Open the provider's sign-in page in a new tab of the managed browser, for you to sign in
    by hand once; jobs then use that session."""
    import asyncio

    from oraculum.browser.keeper import open_login_tab
    from oraculum.core.config import provider_urls
    from oraculum.core.presets import normalize_provider

    config = _config()
    url = provider_urls(config, normalize_provider(provider))[1]
    endpoint = asyncio.run(open_login_tab(config, url))
    result = {"opened": url, "port": int(endpoint.http_url.rsplit(":", 1)[1])}
    emit(result, text=f"Sign in at {url} in the managed browser window; it stays open for jobs.")
