"""The managed transport's keeper: one long-lived Chromium oraculum owns, on its own profile.

``oraculum browser start`` (or a job, when ``browser.managed.startOnDemand``) starts the system
Chromium on ``<data dir>/managed-profile`` with a DevTools port chosen by Chromium on loopback,
headed when a display exists. Its first tab is a marker page whose URL carries a random token;
``<state dir>/keeper.json`` (0600) records the port, the browser's id, the token and the process.
A job trusts the endpoint only while it proves both: ``/json/version`` names the recorded
browser id and one of its tabs carries the token. Anything else answering on that port (a
restarted or foreign browser on a reused port) is refused.

The user signs in once in this browser (``oraculum browser login``); jobs then open their own
background tabs in it (``browser.transport``).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from oraculum.browser import cdp
from oraculum.browser.chromium import launch_args, resolve_executable
from oraculum.core import paths
from oraculum.core.config import Config
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.fsio import atomic_write_json, ensure_private_dir, os_errors
from oraculum.core.process_group import end_group, spawn_group

__all__ = [
    "KeeperRecord",
    "ensure_keeper",
    "keeper_alive",
    "keeper_status",
    "marker_url",
    "not_running",
    "open_login_tab",
    "proof_problem",
    "prove_keeper",
    "read_record",
    "record_path",
    "same_process",
    "start_keeper",
    "stop_keeper",
]

START_TIMEOUT_S = 30.0
STOP_GRACE_S = 10.0
STOP_VERIFY_S = 5.0
LOCK_TIMEOUT_S = 60.0
MARKER_PREFIX = "#oraculum-keeper="
# Keep a keeper's tabs running while they are behind other windows; a background tab still
# gets no animation frames (the job flow handles that), but occluded windows stay live.
KEEPER_ARGS: tuple[str, ...] = (
    "--disable-backgrounding-occluded-windows",
    "--disable-renderer-backgrounding",
    "--disable-background-timer-throttling",
)
_MARKER_HTML = (
    "<!doctype html><title>oraculum managed browser</title>"
    "<p>This browser is run by oraculum (browser.transport = managed). "
    "Keep this tab open: jobs check it to know this browser is oraculum's.</p>"
)


@dataclass(frozen=True)
class KeeperRecord:
    pid: int
    create_time: float
    port: int
    browser_id: str
    token: str
    profile_dir: str
    headed: bool
    started_at: float

    @classmethod
    def from_json(cls, data: Any) -> KeeperRecord | None:
        try:
            return cls(**{name: data[name] for name in cls.__dataclass_fields__})
        except (KeyError, TypeError):
            return None


def record_path() -> Path:
    return paths.state_dir() / "keeper.json"


def profile_dir() -> Path:
    return paths.data_dir() / "managed-profile"


def marker_url(token: str) -> str:
    return "data:text/html;charset=utf-8," + quote(_MARKER_HTML) + MARKER_PREFIX + token


def headed_wanted(setting: str, environ: dict[str, str] | os._Environ[str]) -> bool:
    if setting != "auto":
        return setting == "headed"
    return sys.platform == "darwin" or bool(
        environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY")
    )


def proof_problem(record: KeeperRecord, version: Any, targets: Any) -> str | None:
    """Why what answers at the keeper's port is not the recorded keeper, or None (pure)."""
    if not isinstance(version, dict):
        return "it does not answer /json/version like Chromium"
    problem = cdp.browser_ws_problem(version.get("webSocketDebuggerUrl"), "127.0.0.1", record.port)
    if problem:
        return problem
    if cdp.browser_id_of(version["webSocketDebuggerUrl"]) != record.browser_id:
        return "another browser answers on the keeper's port (its browser id differs)"
    urls = (
        [t.get("url") for t in targets if isinstance(t, dict)] if isinstance(targets, list) else []
    )
    if not any(isinstance(u, str) and u.endswith(MARKER_PREFIX + record.token) for u in urls):
        return "no tab carries the keeper's token (was its marker tab closed?)"
    return None


def read_record() -> KeeperRecord | None:
    try:
        return KeeperRecord.from_json(json.loads(record_path().read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


def same_process(pid: int, create_time: float) -> bool:
    """Whether ``pid`` is still the process that started at ``create_time`` and runs."""
    import psutil

    try:
        proc = psutil.Process(pid)
        same = abs(proc.create_time() - create_time) < 0.01
        return same and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def keeper_alive(record: KeeperRecord) -> bool:
    """Whether the recorded process is still that same, running Chromium."""
    return same_process(record.pid, record.create_time)


def not_running(why: str) -> OracleError:
    return OracleError(
        ErrorCode.MANAGED_BROWSER_NOT_RUNNING,
        f"The managed browser is not running ({why}).",
        retryable=True,
        suggested_next_step="Run `oraculum browser start` (and `oraculum browser login` once), "
        "or set browser.managed.startOnDemand.",
    )


async def prove_keeper(record: KeeperRecord) -> cdp.Endpoint:
    """The keeper's endpoint once it proved itself; ``managed_endpoint_unproven`` otherwise."""
    base = cdp.http_base("127.0.0.1", record.port)
    try:
        version = await cdp.get_json(f"{base}/json/version")
        targets = await cdp.get_json(f"{base}/json/list")
    except cdp.CdpError as exc:
        raise not_running(str(exc)) from exc
    problem = proof_problem(record, version, targets)
    if problem:
        raise OracleError(
            ErrorCode.MANAGED_ENDPOINT_UNPROVEN,
            f"The managed browser's port {record.port} does not prove it is oraculum's: {problem}.",
            suggested_next_step="Run `oraculum browser stop` and `oraculum browser start`.",
        )
    ws = cdp.socket_url("127.0.0.1", record.port, version["webSocketDebuggerUrl"])
    return cdp.Endpoint("managed", base, ws, record.browser_id)


# --- starting and stopping --------------------------------------------------------------------


def _argv(config: Config, profile: Path, token: str, headed: bool) -> list[str]:
    executable = resolve_executable(
        str(config.browser.executable_path) if config.browser.executable_path else None
    )
    extra = [*config.browser.args, *KEEPER_ARGS, "--remote-debugging-port=0"]
    extra.append(f"--user-data-dir={profile}")
    if not headed:
        extra.append("--headless=new")
    return [str(executable), *launch_args(extra), marker_url(token)]


def _wait_for_port(proc: subprocess.Popen[bytes], profile: Path) -> tuple[int, str]:
    """Chromium writes ``DevToolsActivePort`` (port, browser path) once DevTools listens."""
    active = profile / "DevToolsActivePort"
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise _start_failed(f"Chromium exited with status {proc.returncode}")
        with contextlib.suppress(OSError, ValueError, IndexError):
            lines = active.read_text(encoding="utf-8").split()
            return int(lines[0]), lines[1].rsplit("/", 1)[1]
        time.sleep(0.1)
    raise _start_failed(f"no DevTools port after {START_TIMEOUT_S:.0f} s")


def _start_failed(why: str) -> OracleError:
    return OracleError(
        ErrorCode.MANAGED_BROWSER_START_FAILED,
        f"The managed browser did not start: {why} (see {paths.state_dir() / 'keeper.log'}).",
        retryable=True,
        suggested_next_step="Check the log, `oraculum doctor`, and browser.executablePath.",
    )


def _spawn(config: Config, headed: bool | None) -> KeeperRecord:
    import psutil

    profile = ensure_private_dir(profile_dir())
    with contextlib.suppress(FileNotFoundError):
        (profile / "DevToolsActivePort").unlink()  # left behind by every earlier exit
    token = secrets.token_hex(16)
    if headed is None:
        headed = headed_wanted(config.browser.managed.headed, os.environ)
    log_path = ensure_private_dir(paths.state_dir()) / "keeper.log"
    with os_errors(log_path):
        # Its own session: the keeper outlives the command or job that started it.
        proc = spawn_group(_argv(config, profile, token, headed), stdout=log_path, stderr=log_path)
    try:
        port, browser_id = _wait_for_port(proc, profile)
        created = psutil.Process(proc.pid).create_time()
    except BaseException:
        end_group(proc.pid, lambda: proc.poll() is not None, grace_s=0, verify_s=STOP_VERIFY_S)
        raise
    record = KeeperRecord(
        proc.pid, created, port, browser_id, token, str(profile), headed, time.time()
    )
    atomic_write_json(record_path(), asdict(record))
    return record


def start_keeper(config: Config, *, headed: bool | None = None) -> tuple[KeeperRecord, bool]:
    """The running keeper, started if need be (``headed`` overrides browser.managed.headed);
    returns (record, started now)."""
    from oraculum.jobs.locks import named_lock

    with named_lock("keeper", "managed", timeout=LOCK_TIMEOUT_S):
        record = read_record()
        if record is not None and keeper_alive(record):
            return record, False
        if record is not None:
            _remove_record()
        return _spawn(config, headed), True


def _remove_record() -> None:
    with contextlib.suppress(FileNotFoundError):
        record_path().unlink()


def stop_keeper() -> bool:
    """Quit the recorded keeper (only if it is still that very process); True if one ran."""
    from oraculum.jobs.locks import named_lock

    with named_lock("keeper", "managed", timeout=LOCK_TIMEOUT_S):
        record = read_record()
        if record is None:
            return False
        running = keeper_alive(record)
        if running:  # SIGTERM is Chromium's clean quit
            end_group(
                record.pid,
                lambda: not keeper_alive(record),
                grace_s=STOP_GRACE_S,
                verify_s=STOP_VERIFY_S,
            )
        _remove_record()
        return running


async def keeper_status() -> dict[str, Any]:
    """What `oraculum browser status` shows: running, proven, port, headed, tabs."""
    record = read_record()
    if record is None:
        return {"running": False, "proven": False, "profileDir": str(profile_dir())}
    status: dict[str, Any] = {
        "running": keeper_alive(record),
        "pid": record.pid,
        "port": record.port,
        "headed": record.headed,
        "profileDir": record.profile_dir,
        "proven": False,
    }
    if status["running"]:
        try:
            endpoint = await prove_keeper(record)
            targets = await cdp.get_json(f"{endpoint.http_url}/json/list")
            status["proven"] = True
            status["tabs"] = sum(1 for t in targets if t.get("type") == "page")
        except (OracleError, cdp.CdpError) as exc:
            status["problem"] = str(exc)
    return status


async def ensure_keeper(config: Config) -> cdp.Endpoint:
    """For a job: the proven keeper endpoint, starting the keeper first when so configured."""
    import asyncio

    record = read_record()
    if record is not None and keeper_alive(record):
        return await prove_keeper(record)
    if not config.browser.managed.start_on_demand:
        raise not_running("no keeper process; browser.managed.startOnDemand is off")
    started, _ = await asyncio.to_thread(start_keeper, config)
    return await prove_keeper(started)


async def open_login_tab(config: Config, url: str) -> cdp.Endpoint:
    """Open ``url`` in a new foreground tab of the keeper, for the user to sign in by hand."""
    record, _ = start_keeper(config)
    if not record.headed:
        raise OracleError(
            ErrorCode.AUTH_UNAVAILABLE,
            "The managed browser runs headless (no display), so nobody can sign in in it.",
            suggested_next_step="Run `oraculum browser stop`, then `oraculum browser login` "
            "from a desktop session (or set browser.managed.headed to headed).",
        )
    endpoint = await prove_keeper(record)
    await cdp.call(endpoint.ws_url, "Target.createTarget", {"url": url})
    return endpoint
