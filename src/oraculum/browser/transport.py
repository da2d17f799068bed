"""Where a job's page comes from: ``browser.transport`` = isolated | managed | relay.

``isolated`` (the default) is the per-job clone of the signed-in seed, launched by the job
(``providers.browser_job``). ``managed`` and ``relay`` attach to a browser that outlives the
job — oraculum's keeper, or the user's own Chrome — and give the job one new *background* tab:

- the tab is created with ``Target.createTarget(background=True)``, so no tab is activated and
  the user's tab keeps focus and visibility;
- the job's Playwright connects through :mod:`oraculum.browser.tabpin`, which shows it only that
  tab and refuses activation, browser close, download-behaviour changes and other targets;
- the tab is closed at the end (the browser never is);
- a browser that goes away (or is replaced) mid-job fails the job with
  ``managed_browser_lost`` / ``relay_browser_lost`` instead of a generic crash.

Everything above the page (capacity, leases, capture, artifacts, recollection) is unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Page

from oraculum.browser import cdp
from oraculum.browser.chromium import playwright_driver
from oraculum.browser.keeper import same_process
from oraculum.browser.tabpin import PinState, pinned_endpoint
from oraculum.core import paths
from oraculum.core.config import Config
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.fsio import atomic_write_json, ensure_private_dir

__all__ = [
    "attached_page",
    "endpoint_for",
    "is_orphan",
    "job_tab",
    "lost_error",
    "opened_by",
    "sweep_orphan_tabs",
    "with_sign_in_advice",
]

PAGE_APPEAR_TIMEOUT_S = 10.0
CLOSE_TIMEOUT_S = 10.0
_LOST_CODES = {"managed": ErrorCode.MANAGED_BROWSER_LOST, "relay": ErrorCode.RELAY_BROWSER_LOST}
_WHO = {"managed": "The managed browser (keeper)", "relay": "The relay browser"}


async def endpoint_for(config: Config) -> cdp.Endpoint:
    """The proven endpoint of the configured attached transport."""
    transport = config.browser.transport
    if transport == "managed":
        from oraculum.browser.keeper import ensure_keeper

        return await ensure_keeper(config)
    if transport == "relay":
        from oraculum.browser.relay import prove_relay

        relay = config.browser.relay
        return await prove_relay(relay.endpoint, enabled=relay.enabled)
    raise ValueError(f"transport {transport!r} launches its own browser")


async def _owned_page(browser: Browser) -> Page:
    """The one page the pinned connection shows (it may arrive just after connecting)."""
    deadline = asyncio.get_running_loop().time() + PAGE_APPEAR_TIMEOUT_S
    while asyncio.get_running_loop().time() < deadline:
        for context in browser.contexts:
            if context.pages:
                return context.pages[0]
        await asyncio.sleep(0.05)
    raise OracleError(ErrorCode.BROWSER_ERROR, "The job's new tab never appeared over DevTools.")


def opened_by(targets: list[dict[str, Any]], target_id: str) -> list[str]:
    """The targets ``target_id`` opened (popups, and what they opened in turn), in the order
    they descend from it."""
    found: list[str] = []
    parents = [target_id]
    while parents:
        children = [
            str(t["targetId"])
            for t in targets
            if t.get("openerId") in parents and t.get("targetId") not in found
        ]
        found += children
        parents = children
    return found


async def _close_tab(endpoint: cdp.Endpoint, target_id: str) -> None:
    """Close the job's own tab and every tab it opened (a popup the page opened must not stay
    behind in the user's browser); a browser that is gone took them along."""
    with contextlib.suppress(cdp.CdpError):
        listed = await cdp.call(endpoint.ws_url, "Target.getTargets", {})
        targets = [t for t in listed.get("targetInfos", []) if isinstance(t, dict)]
        for opened in reversed(opened_by(targets, target_id)):
            await cdp.call(endpoint.ws_url, "Target.closeTarget", {"targetId": opened})
    with contextlib.suppress(cdp.CdpError):
        await cdp.call(endpoint.ws_url, "Target.closeTarget", {"targetId": target_id})


# Every open job tab is recorded (browser id, owning process) until the job closes it, so the
# tab of a worker that was killed outright is closed by the next job on the same browser.
_TARGET_ID = re.compile(r"^[0-9A-F]{32}$")


def _tabs_dir() -> Path:
    return paths.state_dir() / "attached-tabs"


def _record_tab(endpoint: cdp.Endpoint, target_id: str) -> Path | None:
    import psutil

    if not _TARGET_ID.match(target_id):
        return None  # not a name to build a path from; the tab is still closed at the end
    me = psutil.Process()
    path = ensure_private_dir(_tabs_dir()) / f"{target_id}.json"
    entry = {"browserId": endpoint.browser_id, "pid": me.pid, "createTime": me.create_time()}
    atomic_write_json(path, entry)
    return path


def is_orphan(entry: Any, browser_id: str) -> bool:
    """Whether a recorded tab belongs to this browser and its job's process is gone."""
    if not isinstance(entry, dict) or entry.get("browserId") != browser_id:
        return False
    pid, created = entry.get("pid"), entry.get("createTime")
    if not isinstance(pid, int) or not isinstance(created, int | float):
        return False
    return not same_process(pid, float(created))


async def sweep_orphan_tabs(endpoint: cdp.Endpoint) -> list[str]:
    """Close the tabs of this browser whose job process died without closing them."""
    closed: list[str] = []
    for path in sorted(_tabs_dir().glob("*.json")) if _tabs_dir().is_dir() else []:
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if _TARGET_ID.match(path.stem) and is_orphan(entry, endpoint.browser_id):
            await _close_tab(endpoint, path.stem)
            path.unlink(missing_ok=True)
            closed.append(path.stem)
    return closed


@contextlib.asynccontextmanager
async def job_tab(endpoint: cdp.Endpoint) -> AsyncIterator[Page]:
    """A new background tab in ``endpoint``'s browser, driven through a tab pin."""
    created = await cdp.call(
        endpoint.ws_url, "Target.createTarget", {"url": "about:blank", "background": True}
    )
    target_id = str(created.get("targetId", ""))
    record = _record_tab(endpoint, target_id)
    try:
        async with (
            pinned_endpoint(endpoint.ws_url, PinState(target_id)) as pin_url,
            playwright_driver() as playwright,
        ):
            browser = await playwright.chromium.connect_over_cdp(pin_url)
            try:
                yield await _owned_page(browser)
            finally:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(browser.close(), CLOSE_TIMEOUT_S)
    finally:
        await _close_tab(endpoint, target_id)
        if record is not None:
            record.unlink(missing_ok=True)


async def browser_gone(endpoint: cdp.Endpoint) -> bool:
    """Whether the endpoint's browser no longer answers, or another browser does."""
    try:
        version = await cdp.get_json(f"{endpoint.http_url}/json/version", timeout_s=3.0)
    except cdp.CdpError:
        return True
    ws = version.get("webSocketDebuggerUrl") if isinstance(version, dict) else None
    return not isinstance(ws, str) or cdp.browser_id_of(ws) != endpoint.browser_id


def lost_error(endpoint: cdp.Endpoint, exc: BaseException) -> OracleError:
    return OracleError(
        _LOST_CODES[endpoint.transport],
        f"{_WHO[endpoint.transport]} went away while the job ran ({type(exc).__name__}: "
        f"{str(exc).strip().splitlines()[0] if str(exc).strip() else 'no detail'}).",
        retryable=True,
        suggested_next_step="Check the browser (`oraculum browser status` for managed), "
        "then resubmit or recollect.",
        details={"transport": endpoint.transport},
    )


@contextlib.asynccontextmanager
async def attached_page(
    config: Config, log: Callable[[str], None] | None = None
) -> AsyncIterator[Page]:
    """The job's page on the managed or relay transport; failures from a vanished browser are
    reported as that browser's loss."""
    endpoint = await endpoint_for(config)
    if log is not None:
        log(f"transport {endpoint.transport}: attached to browser {endpoint.browser_id[:8]}…")
    swept = await sweep_orphan_tabs(endpoint)
    if swept and log is not None:
        log(f"closed {len(swept)} tab(s) left by a job whose worker died")
    try:
        async with job_tab(endpoint) as page:
            yield page
    except OracleError as exc:
        if await browser_gone(endpoint):
            raise lost_error(endpoint, exc) from exc
        with_sign_in_advice(exc, endpoint.transport)
        raise
    except Exception as exc:
        if await browser_gone(endpoint):
            raise lost_error(endpoint, exc) from exc
        raise


_SIGN_IN_ADVICE = {
    "managed": "sign in once in the managed browser with `oraculum browser login`",
    "relay": "sign in in your own Chrome (the relay browser)",
}


def with_sign_in_advice(error: OracleError, transport: str) -> OracleError:
    """A provider's "run `oraculum auth`" is the isolated transport's advice; on an attached
    browser the user signs in in that browser instead (pure: returns ``error``, adjusted)."""
    if not error.code.startswith("auth_") or "oraculum auth" not in error.message:
        return error
    advice = _SIGN_IN_ADVICE[transport]
    error.message = error.message.replace(
        "Run `oraculum auth` to sign the seed profile in again", advice[:1].upper() + advice[1:]
    )
    if "oraculum auth" in error.message:
        error.message += f" (transport {transport}: {advice})"
    error.suggested_next_step = f"{advice[:1].upper() + advice[1:]}, then resubmit."
    return error
