"""`simulator use`: point every later job at a running simulator, and back (`--off`).

The step between the demo and real use: run `oraculum simulator serve` in one terminal, then
`oraculum simulator use URL` in another, and every command of the real-use path (preflight,
submit, wait, read, the MCP server, an agent host) runs against the look-alike exactly as it
will against ChatGPT or Grok. It writes the provider's URL keys into the global config and
points the seed profiles at a simulator seed of their own (so a real signed-in seed is never
touched), signs that seed in through the simulator, and keeps the config it replaced beside
it; `simulator use --off` puts that config back, byte for byte.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from oraculum.core.config import load_config, read_config_file, seed_profile_dir
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.fsio import atomic_write_bytes, ensure_private_dir
from oraculum.core.paths import data_dir, global_config_path
from oraculum.core.presets import normalize_provider
from oraculum.core.surface import Surface

__all__ = ["SimulatorUse", "stop_using_simulator", "use_simulator"]

_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


@dataclass(frozen=True)
class SimulatorUse:
    """Where jobs now go, and the config kept to come back to."""

    provider: str | None  # None after --off
    url: str | None
    config_path: Path
    saved_config: Path | None
    seed_profile_dir: Path | None
    message: str

    def to_json(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "url": self.url,
            "configPath": str(self.config_path),
            "savedConfig": str(self.saved_config) if self.saved_config else None,
            "seedProfileDir": str(self.seed_profile_dir) if self.seed_profile_dir else None,
            "message": self.message,
        }

    def text(self, surface: Surface) -> str:
        return self.message


def saved_config_path() -> Path:
    """The global config as it was before `simulator use` (absent: no config file then)."""
    return global_config_path().with_name("config.before-simulator.json")


def _in_use_marker() -> Path:
    return global_config_path().with_name("simulator-in-use.json")


def simulator_browser_keys(provider: str, url: str, chat_url: str | None = None) -> dict[str, str]:
    """The `browser` keys that send ``provider``'s jobs and sign-ins to the simulator at
    ``url`` (``chat_url``: a page of it with knobs, e.g. the demo's shell and picker)."""
    from oraculum.simulator.site import site_for

    root = url.rstrip("/")
    site = site_for(provider)
    new_chat = root + site.new_chat_path()
    if provider == "grok":
        return {"grokUrl": chat_url or new_chat}  # Grok signs in from its chat page
    if provider == "gemini":
        return {"geminiUrl": chat_url or new_chat}  # so does Gemini, from its app page
    return {"chatUrl": chat_url or new_chat, "authUrl": root + site.sign_in_path}


def simulator_config(url: str, provider: str, base: dict[str, Any]) -> dict[str, Any]:
    """``base`` with its browser keys pointed at the simulator at ``url`` and a seed of its
    own (pure but for where the data directory is)."""
    browser = dict(base.get("browser") or {})
    browser["authSeedProfileDir"] = str(data_dir() / "simulator" / "seed-profile")
    browser.update(simulator_browser_keys(provider, url))
    return {**base, "browser": browser}


def _check_simulator(url: str) -> str:
    """The simulator's provider, read from its state; refused unless one answers on loopback."""
    host = (urlsplit(url).hostname or "").lower()
    if urlsplit(url).scheme != "http" or host not in _LOOPBACK:
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            f"{url} is not a simulator on this machine (http://127.0.0.1:PORT).",
            rejected_value=url,
            suggested_next_step="Start `oraculum simulator serve` and pass the URL it prints.",
        )
    try:
        # http on loopback only, checked above
        state_url = url.rstrip("/") + "/__sim/state"
        with urllib.request.urlopen(state_url, timeout=5) as answer:  # noqa: S310
            state = json.loads(answer.read(1 << 20))
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            f"No oraculum simulator answers at {url} ({exc}).",
            rejected_value=url,
            suggested_next_step="Start one with `oraculum simulator serve`, then run this again.",
        ) from None
    return str(state.get("provider") or "chatgpt")


def use_simulator(url: str, provider: str | None = None) -> SimulatorUse:
    """Point jobs of ``provider`` (the simulator's own by default) at ``url``."""
    found = _check_simulator(url)
    name = normalize_provider(provider or found)
    config_path = global_config_path()
    saved = saved_config_path()
    if not _in_use_marker().exists():  # the first `use` keeps the user's own config
        ensure_private_dir(config_path.parent)
        original = config_path.read_bytes() if config_path.exists() else b""
        atomic_write_bytes(saved, original)
    base = read_config_file(config_path) or {}
    pointed = simulator_config(url, name, base)
    atomic_write_bytes(config_path, json.dumps(pointed, indent=2).encode())
    atomic_write_bytes(_in_use_marker(), json.dumps({"url": url, "provider": name}).encode())
    config = load_config().config
    seed = seed_profile_dir(config, name)
    from oraculum.auth.simulator import seed_simulator_profile
    from oraculum.browser.session import LaunchOptions

    options = LaunchOptions.from_config(config)
    asyncio.run(seed_simulator_profile(seed, url.rstrip("/"), options, provider=name))
    message = (
        f"Jobs for {name} now go to the simulator at {url} (signed in: {seed}). "
        f"Your config is kept at {saved}; `oraculum simulator use --off` puts it back."
    )
    return SimulatorUse(name, url, config_path, saved, seed, message)


def stop_using_simulator() -> SimulatorUse:
    """Put back the global config `simulator use` replaced."""
    config_path = global_config_path()
    saved = saved_config_path()
    if not _in_use_marker().exists() or not saved.exists():
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            "Jobs are not pointed at a simulator (no `oraculum simulator use` to undo).",
            suggested_next_step="Nothing to do; `oraculum config show` shows where jobs go.",
        )
    original = saved.read_bytes()
    if original:
        atomic_write_bytes(config_path, original)
    else:
        config_path.unlink(missing_ok=True)  # there was no config file before
    saved.unlink()
    _in_use_marker().unlink()
    message = f"Jobs go where your own config says again ({config_path} restored)."
    return SimulatorUse(None, None, config_path, None, None, message)
