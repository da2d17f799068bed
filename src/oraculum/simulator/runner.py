"""Running the simulator: in-process (`run_simulator`), on a thread (`SimulatorThread`)."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from typing import Any, ParamSpec, TypeVar
from urllib.parse import urlencode

from aiohttp import web

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.simulator import actions, scenarios
from oraculum.simulator.app import DEFAULT_EMAIL, create_app
from oraculum.simulator.scenarios import Scenario
from oraculum.simulator.site import Site, site_for
from oraculum.simulator.state import SimState
from oraculum.simulator.widget import create_widget_app, widget_host

_P = ParamSpec("_P")
_T = TypeVar("_T")

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def _check_host(host: str) -> None:
    if host not in LOOPBACK_HOSTS:
        raise OracleError(
            ErrorCode.SIMULATOR_HOST_NOT_LOOPBACK,
            f"The simulator binds to loopback only, not {host!r}.",
            rejected_value=host,
            allowed_values=list(LOOPBACK_HOSTS),
        )


class Simulator:
    """A running simulator: its URL, its state, and helpers for tests.

    Methods only change plain data; call them from the loop that runs the server (for
    `SimulatorThread`, its own wrappers do that)."""

    def __init__(self, state: SimState, host: str, port: int) -> None:
        self.state = state
        self.site: Site = site_for(state.provider)
        self.host = host
        self.port = port
        url_host = f"[{host}]" if ":" in host else host
        self.url = f"http://{url_host}:{port}"

    @property
    def provider(self) -> str:
        return self.state.provider

    @property
    def sign_in_url(self) -> str:
        return f"{self.url}{self.site.sign_in_path}"

    @property
    def widget_origin(self) -> str:
        """Deep Research's report widget origin (ChatGPT only; "" for Grok): another site."""
        return self.state.widget_origin

    def chat_url(self, **knobs: Any) -> str:
        """The new-chat URL carrying `knobs`, e.g. chat_url(scenario="challenge", think_ms=0)."""
        pairs = {
            k: ",".join(v) if isinstance(v, list | tuple | set | frozenset) else v
            for k, v in knobs.items()
        }
        scenarios.apply(self.state.defaults, pairs, strict=True)  # fail early on typos
        query = urlencode(pairs)
        return f"{self.url}{self.site.new_chat_path()}" + (f"?{query}" if query else "")

    def conversation_url(self, conversation_id: str) -> str:
        return f"{self.url}{self.site.conversation_path(conversation_id)}"

    def session_cookie(self, email: str = DEFAULT_EMAIL) -> dict[str, Any]:
        """A fresh signed-in session, as a Playwright cookie (`context.add_cookies([...])`):
        ChatGPT's `oraculum-sim-session`, Grok's `sso`, Gemini's `__Secure-1PSID`."""
        token = self.state.new_session(email)
        name = self.site.session_cookie
        # A `__Secure-` cookie must be Secure, and CDP refuses a Secure one for an http URL:
        # it is given by host and path instead (Chromium sends it to a loopback origin).
        where: dict[str, Any] = (
            {"domain": self.host, "path": "/", "secure": True}
            if name.startswith("__Secure-")
            else {"url": self.url}
        )
        return {"name": name, "value": token, **where, "httpOnly": True, "sameSite": "Lax"}

    def set_scenario(
        self, scenario: str | Iterable[str] | None = None, *, reset: bool = False, **knobs: Any
    ) -> Scenario:
        """Change the defaults for conversations created from now on."""
        values: dict[str, Any] = dict(knobs)
        if scenario is not None:
            values["scenario"] = scenario
        # The page's shell and language are the site's, kept through a reset.
        defaults = self.state.defaults
        fresh = Scenario(provider=defaults.provider, shell=defaults.shell, locale=defaults.locale)
        base = fresh if reset else self.state.defaults
        self.state.defaults = scenarios.apply(base, values, strict=True)
        return self.state.defaults

    def seed_conversation(
        self,
        turns: Iterable[Mapping[str, Any] | str],
        *,
        shell: str | None = None,
        scenario: str | Iterable[str] | None = None,
        title: str | None = None,
        **knobs: Any,
    ) -> str:
        """A finished conversation, ready to open at `conversation_url(id)`; returns its id.

        Turns alternate user/assistant; each is a string (an assistant's is Markdown) or a dict
        with `role`, `text`, `html` (assistant HTML as-is), `answer` (a template name),
        `attachments` (names, or (name, bytes) pairs), `reasoning_label`, `message_id`,
        `comparison` (Markdown of a second candidate reply, shown beside the first)."""
        values: dict[str, Any] = dict(knobs)
        if shell is not None:
            values["shell"] = shell
        if scenario is not None:
            values["scenario"] = scenario
        sc = scenarios.apply(self.state.defaults, values, strict=True)
        return actions.seed(self.state, turns, sc, title=title).id


def make_state(
    *,
    provider: str = "chatgpt",
    shell: str = "classic",
    require_login: bool = True,
    **defaults: Any,
) -> SimState:
    site = site_for(provider)
    values = dict(defaults)
    values["shell"] = shell
    return SimState(
        defaults=scenarios.apply(Scenario(provider=provider), values, strict=True),
        provider=provider,
        require_login=require_login,
        selection=dataclasses.replace(site.default_selection),
    )


@asynccontextmanager
async def run_simulator(
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    provider: str = "chatgpt",
    shell: str = "classic",
    require_login: bool = True,
    **defaults: Any,
) -> AsyncIterator[Simulator]:
    """Serve the simulator on the running loop; `port=0` picks a free port. `provider` is the
    site it imitates: "chatgpt" (default) or "grok"."""
    _check_host(host)
    state = make_state(provider=provider, shell=shell, require_login=require_login, **defaults)
    runner, actual_port = await _serve(create_app(state), host, port)
    widget_runner = None
    try:
        sim = Simulator(state, host, actual_port)
        state.host_origin = sim.url
        if provider == "chatgpt":
            # Deep Research's report widget lives on another origin (a second socket).
            widget_runner, widget_port = await _serve(create_widget_app(state), "127.0.0.1", 0)
            state.widget_origin = f"http://{widget_host(host)}:{widget_port}"
        yield sim
    finally:
        if widget_runner is not None:
            await widget_runner.cleanup()
        await runner.cleanup()


async def _serve(app: web.Application, host: str, port: int) -> tuple[web.AppRunner, int]:
    """`app` listening on host:port (0 = a free port); returns its runner and the real port."""
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    server = site._server
    assert server is not None and isinstance(server, asyncio.base_events.Server)
    return runner, server.sockets[0].getsockname()[1]


class SimulatorThread:
    """The simulator on a background thread, for sync code (CLI, demo, sync tests).

    ``with SimulatorThread(shell="redesign") as sim: ...`` — `sim` is this object; it mirrors
    `Simulator`'s helpers and runs each one on the server's loop."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        provider: str = "chatgpt",
        shell: str = "classic",
        require_login: bool = True,
        **defaults: Any,
    ) -> None:
        _check_host(host)
        self._kwargs: dict[str, Any] = dict(
            host=host,
            port=port,
            provider=provider,
            shell=shell,
            require_login=require_login,
            **defaults,
        )
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="oraculum-simulator", daemon=True)
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._sim: Simulator | None = None
        self._error: BaseException | None = None

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._serve())
        except BaseException as error:  # surfaced to the starting thread
            self._error = error
            self._ready.set()
        finally:
            self._loop.close()

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        async with run_simulator(**self._kwargs) as sim:
            self._sim = sim
            self._ready.set()
            await self._stop.wait()

    def start(self) -> SimulatorThread:
        self._thread.start()
        self._ready.wait(30)
        if self._error is not None:
            raise self._error
        if self._sim is None:
            raise OracleError(
                ErrorCode.SIMULATOR_START_FAILED, "The simulator did not start in 30 s."
            )
        return self

    def stop(self) -> None:
        if self._stop is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
            self._thread.join(10)

    def __enter__(self) -> SimulatorThread:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    @property
    def sim(self) -> Simulator:
        assert self._sim is not None, "start() first"
        return self._sim

    def _call(self, fn: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
        async def run() -> _T:
            return fn(*args, **kwargs)

        return asyncio.run_coroutine_threadsafe(run(), self._loop).result(10)

    @property
    def url(self) -> str:
        return self.sim.url

    @property
    def state(self) -> SimState:
        return self.sim.state

    @property
    def sign_in_url(self) -> str:
        return self.sim.sign_in_url

    @property
    def provider(self) -> str:
        return self.sim.provider

    @property
    def widget_origin(self) -> str:
        return self.sim.widget_origin

    def chat_url(self, **knobs: Any) -> str:
        return self.sim.chat_url(**knobs)

    def conversation_url(self, conversation_id: str) -> str:
        return self.sim.conversation_url(conversation_id)

    def session_cookie(self, email: str = DEFAULT_EMAIL) -> dict[str, Any]:
        return self._call(self.sim.session_cookie, email)

    def set_scenario(self, scenario: str | Iterable[str] | None = None, **knobs: Any) -> Scenario:
        return self._call(self.sim.set_scenario, scenario, **knobs)

    def seed_conversation(self, turns: Iterable[Mapping[str, Any] | str], **kwargs: Any) -> str:
        return self._call(self.sim.seed_conversation, list(turns), **kwargs)
